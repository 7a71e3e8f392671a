"""`make demo` prints what README.md says it prints, in that order: the skipping table of the
plain dataset first, then the managed table's steps and its table, every answer identical to
plain Spark's. Run here on a tenth of the sample (30,000 rows in 20 files), one run per query,
by ``make test-docs``."""
from __future__ import annotations

import os
from typing import Any

import pytest

from skipstone import demo

pytestmark = pytest.mark.skipif(os.environ.get("SKIPSTONE_DOCS") != "all",
                                reason="about two minutes: make test-docs runs it")


def test_the_demo_prints_the_skipping_table_then_the_managed_table(spark: Any, tmp_path: Any, capsys: Any) -> None:
    results = demo.run(spark, str(tmp_path / "weather"), repeats=1, rows=30_000, files=20)
    out = capsys.readouterr().out
    order = [out.index(text) for text in ("Indexed MinMax(ts)", "query                           files skipped",
                                           "Managed table:", "Skipstone.create:", "t.append:", "t.optimize:",
                                           "table state", "The demo took")]
    assert order == sorted(order), out
    assert all(r["identical"] for r in results)
    skipping = {r["query"]: r for r in results if not r.get("table")}
    assert skipping["one day"]["files_skipped"] > 0.9 * skipping["one day"]["files_total"]
    assert skipping["one station (not clustered)"]["files_skipped"] == 0
