"""Tables over the values and names the table fuzzer (tests/fuzz/tables.py) tripped on: layout
columns full of infinities and NULLs (cuts at -inf, their encoding), a top-level column named
like a struct's field, and columns differing only in case."""
from __future__ import annotations

import json
import math

import pytest

from skipstone import Skipstone
from skipstone.layout import Hilbert, KdTree, ZOrder
from skipstone.layout.serialization import layout_from_json
from tests.table.table_data import as_multiset

INFINITE = [(-math.inf, k) for k in range(6)] + [(None, 10 + k) for k in range(6)] + \
           [(math.inf, 20 + k) for k in range(3)] + [(1.5, 30 + k) for k in range(3)] + [(math.nan, 40)]


@pytest.mark.parametrize("layout", [KdTree(block_rows=3, columns=["x"]), ZOrder(block_rows=3, columns=["x", "k"]),
                                    Hilbert(block_rows=3, columns=["x", "k"], bits=2)],
                         ids=["kd", "zorder", "hilbert"])
def test_a_layout_column_of_infinities_and_nulls_commits_and_answers_right(spark, tmp_path, layout):
    df = spark.createDataFrame(INFINITE, "x DOUBLE, k INT")
    t = Skipstone.create(spark, str(tmp_path / "t"), df, layout=layout)
    document = json.loads(json.dumps(t.current().layout, allow_nan=False))  # strict JSON
    assert layout_from_json(document).block_count == t.tree().block_count
    assert as_multiset(spark.read.parquet(t.root)) == as_multiset(df)
    for predicate in ("x = double('-Infinity')", "x IS NULL", "x > 1", "isnan(x)", "x < 2"):
        got = as_multiset(spark.read.parquet(t.root).where(predicate))
        assert got == as_multiset(df.where(predicate)), predicate


def test_a_top_level_column_named_like_a_field_keeps_its_own_values(spark, tmp_path):
    df = spark.createDataFrame([((k, "s"), 100 + k) for k in range(20)], "a STRUCT<b: INT, c: STRING>, `a.b` INT")
    t = Skipstone.create(spark, str(tmp_path / "t"), df, layout=KdTree(block_rows=5, columns=["a.b"]))
    t.append(df)
    rows = spark.read.parquet(t.root).select("`a.b`", "a.b").collect()
    assert sorted(r[0] for r in rows) == sorted(2 * [100 + k for k in range(20)])
    assert sorted(r[1] for r in rows) == sorted(2 * list(range(20)))
    # the default MinMax of the layout column is over the top-level column, so it skips right
    assert spark.read.parquet(t.root).where("`a.b` = 105").count() == 2


def test_append_matches_columns_that_differ_only_in_case_exactly(spark, tmp_path):
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        df = spark.createDataFrame([(k, -k) for k in range(10)], "Mixed INT, mixed INT")
        t = Skipstone.create(spark, str(tmp_path / "t"), df, layout=KdTree(block_rows=5, columns=["Mixed"]))
        t.append(df.select("mixed", "Mixed"))  # another order: matched by name, never by case
        rows = spark.read.parquet(t.root).collect()
        assert all(r["Mixed"] == -r["mixed"] for r in rows) and len(rows) == 20
    finally:
        spark.conf.unset("spark.sql.caseSensitive")
