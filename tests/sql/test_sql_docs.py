"""Every SQL example in docs/sql.md runs as documented: statements succeed, and those marked
``-- error: <message>`` fail with that message."""
from __future__ import annotations

import datetime as dt
import os
import re

import pytest
from pyspark.errors import IllegalArgumentException

from skipstone import MinMax, Skipstone, ValueList
from skipstone.layout import Amoeba
from tests.datasets import write_clustered

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "sql.md")


def sql_blocks() -> list[str]:
    with open(DOC) as f:
        return re.findall(r"```sql\n(.*?)```", f.read(), flags=re.S)


def statements(block: str) -> list[str]:
    return [s.strip() for s in re.split(r";\s*\n", block) if s.strip()]


@pytest.fixture(scope="module")
def paths(spark, tmp_path_factory) -> dict[str, str]:
    """The documented paths, made real: /data/events indexed by MinMax(k) and ValueList(cat), /data/sales managed."""
    base = tmp_path_factory.mktemp("docs")
    events = write_clustered(str(base / "events"))
    Skipstone.for_path(spark, events).build(MinMax("k"), ValueList("cat"))
    rows = [(f"r{i % 4}", dt.date(2024, 1, 1) + dt.timedelta(days=i % 30), float(i)) for i in range(200)]
    sales = spark.createDataFrame(rows, "region STRING, day DATE, amount DOUBLE")
    Skipstone.create(spark, str(base / "sales"), sales, layout=Amoeba(block_rows=50))
    return {"/data/events": events, "/data/sales": str(base / "sales")}


def test_the_doc_has_examples_of_every_statement():
    text = " ".join(sql_blocks()).upper()
    for statement in ("CREATE SKIPPING INDEX", "REFRESH SKIPPING INDEX", "DESCRIBE SKIPPING INDEX", "DROP SKIPPING INDEX",
                      "SHOW SKIPPING STATS", "EXPLAIN", "DESCRIBE HISTORY", "DESCRIBE DETAIL", "SET TBLPROPERTIES", "VACUUM", "OPTIMIZE",
                      "LAYOUT AUTO", "DESCRIBE SKIPPING ADVICE"):
        assert statement in text


@pytest.mark.parametrize("block", sql_blocks(), ids=lambda b: statements(b)[-1].split("\n")[0][:50])
def test_each_sql_example_runs_as_documented(spark, paths, block):
    for documented, real in paths.items():
        block = block.replace(documented, real)
    expected_error = re.match(r"-- error: (.*)\n", block)
    if expected_error:  # the marker is no part of the statement, whose positions the message gives
        block = block[expected_error.end():]
    for statement in statements(block):
        if expected_error:
            with pytest.raises(IllegalArgumentException) as err:
                spark.sql(statement).collect()
            assert expected_error.group(1) in str(err.value)
        else:
            spark.sql(statement).collect()
