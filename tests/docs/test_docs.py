"""Every fenced example of README.md and docs/*.md runs as written (tests/docs/doc_runner.py says
how), page by page from a fresh directory, in one Spark session; a block that cannot run here
carries a ``<!-- not-run: reason -->`` marker in its page.

``make test`` runs the pages in ``QUICK`` but those in ``LONG`` (``make test-long`` runs those,
after it in CI); the
others lay out and rewrite tables of 50,000 to 300,000 rows, or are run by another test too
(docs/cli.md: tests/cli/test_cli_docs.py), and run with the demo in ``make test-docs``
(``SKIPSTONE_DOCS=all``: 5 min 27 s on 2 cores at a load average of 10-13, 2026-11-26)."""
from __future__ import annotations

import os
from typing import Any

import pytest

from tests.cli.cli_runner import cli  # noqa: F401  (the fixture)
from tests.docs.doc_runner import PAGES, PageRun, blocks

QUICK = {"docs/architecture.md", "docs/benchmarks.md", "docs/cloud.md", "docs/cluster.md", "docs/development.md", "docs/encryption.md",
         "docs/extending.md", "docs/fuzzing.md", "docs/index-format.md", "docs/index-types.md", "docs/index.md",
         "docs/install.md", "docs/layout.md", "docs/layout-policies.md", "docs/layout-pricing.md", "docs/layout-results.md", "docs/layout-shifting.md",
         "docs/maintenance.md", "docs/metadata.md", "docs/partial-indexes.md",
         "docs/peers.md", "docs/skipping.md",
         "docs/spark-versions.md", "docs/sql.md", "docs/table-format.md", "docs/tables.md", "docs/use-cases.md"}
# quick pages over 9 s: make test-long runs them (CI after make test), not make test
LONG = {"docs/sql.md", "docs/tables.md"}
ALL = os.environ.get("SKIPSTONE_DOCS") == "all"


def test_every_example_block_runs_or_says_why_not() -> None:
    """A marker needs a reason; the pages hold examples at all (the parser still finds them)."""
    every = [b for page in PAGES for b in blocks(page)]
    assert len(every) > 100
    for block in every:
        assert block.not_run is None or len(block.not_run) > 5, f"{block.where}: say why it cannot run"


def test_the_sql_page_has_an_example_of_every_statement() -> None:
    text = " ".join(b.code for b in blocks("docs/sql.md") if b.language == "sql").upper()
    for statement in ("CREATE SKIPPING INDEX", "REFRESH SKIPPING INDEX", "DESCRIBE SKIPPING INDEX", "DROP SKIPPING INDEX",
                      "SHOW SKIPPING STATS", "EXPLAIN", "DESCRIBE HISTORY", "DESCRIBE DETAIL", "SET TBLPROPERTIES", "VACUUM",
                      "OPTIMIZE", "LAYOUT AUTO", "DESCRIBE SKIPPING ADVICE"):
        assert statement in text


@pytest.mark.parametrize("page", [pytest.param(p, marks=pytest.mark.long) if p in LONG else p for p in PAGES])
def test_the_examples_of_a_page_run_as_written(page: str, spark: Any, cli: Any, tmp_path: Any,  # noqa: F811
                                               monkeypatch: Any, record_property: Any) -> None:
    if page not in QUICK and not ALL:
        pytest.skip("a slow page: make test-docs runs every page")
    monkeypatch.chdir(tmp_path)
    run = PageRun(page, str(tmp_path), spark, cli)
    failures = []
    for block in blocks(page):
        try:
            run.run(block)
        except AssertionError as e:  # later blocks may still run: report every failure at once
            failures.append(str(e))
    record_property("ran", len(run.ran))
    record_property("not_run", [f"{b.where}: {b.not_run}" for b in run.skipped])
    record_property("seconds", {k: round(v, 1) for k, v in run.seconds.items()})
    assert not failures, "\n\n".join(failures)
