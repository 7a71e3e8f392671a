"""Tables over the values and names the table fuzzer (tests/fuzz/tables.py) tripped on: layout
columns full of infinities and NULLs (cuts at -inf, their encoding), a top-level column named
like a struct's field, columns differing only in case, and wall-clock timestamps in sessions
of several time zones."""
from __future__ import annotations

import datetime as dt
import json
import math

import numpy as np
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


def test_a_wall_clock_column_routes_alike_in_every_session_time_zone(spark, tmp_path):
    """TIMESTAMP_NTZ values are encoded as wall-clock microseconds whatever the session's zone:
    a table created in one zone is optimized and appended to in others (an optimize in another
    zone used to find its rows outside the blocks it rewrote), and every file's rows still lie
    in its block's region, encoded here without Spark."""
    from pyspark.sql import functions as F

    from skipstone.layout import LayoutData
    from tests.table.split_policy import SplitLargestBlock

    start = dt.datetime(2024, 3, 10)  # the US switch to summer time: 02:00-03:00 does not exist in Los Angeles
    df = spark.createDataFrame([(start + dt.timedelta(minutes=37 * k), k) for k in range(64)], "tn TIMESTAMP_NTZ, k INT")
    zone = "spark.sql.session.timeZone"
    try:
        spark.conf.set(zone, "America/Los_Angeles")
        t = Skipstone.create(spark, str(tmp_path / "t"), df, layout=KdTree(block_rows=8, columns=["tn"]))
        spark.conf.set(zone, "Pacific/Kiritimati")
        assert t.optimize(SplitLargestBlock()) is not None
        spark.conf.set(zone, "Asia/Kolkata")
        t.append(df)
    finally:
        spark.conf.set(zone, "UTC")
    v = t.current()
    tree = v.tree
    position = {int(b): p for p, b in enumerate(tree.block_ids)}
    epoch, micro = dt.datetime(1970, 1, 1), dt.timedelta(microseconds=1)
    rows = spark.read.parquet(t.root).select(F.col("_metadata.file_name").alias("f"), "tn", "k").collect()
    assert len(rows) == 128
    names = [c.name for c in tree.schema.columns]
    for f in v.files:
        mine = [r for r in rows if f.path.endswith(r.f)]
        encoded = np.array([[(r.tn - epoch) / micro if n == "tn" else float(r.k) for n in names] for r in mine])
        assert set(tree.route(LayoutData(tree.schema, encoded)).tolist()) == {position[f.block]}, f.path


def test_columns_named_with_dots_and_backticks_lay_out_and_append(spark, tmp_path):
    df = spark.createDataFrame([(k, k % 3, f"s{k}") for k in range(30)], "`we``ird` INT, `x.y` INT, s STRING")
    t = Skipstone.create(spark, str(tmp_path / "t"), df, layout=ZOrder(block_rows=6, columns=["we`ird", "x.y"]))
    t.append(df)
    table = spark.read.parquet(t.root)
    assert as_multiset(table) == as_multiset(df.union(df))
    assert as_multiset(table.where("`we``ird` = 7")) == as_multiset(df.union(df).where("`we``ird` = 7"))


def test_a_cut_at_null_on_a_string_or_boolean_column_routes_nulls_left(spark, tmp_path):
    """-inf, NULL's encoding, is a cut the builders make on mostly-NULL columns (and policies may
    propose): on a categorical column it failed to become a Spark test at all."""
    from pyspark.sql import functions as F

    from skipstone.layout.schema import Column as LayoutColumn
    from skipstone.layout.schema import ColumnKind, Schema
    from skipstone.layout.tree import Leaf, PartitionTree, Split
    from tests.table.jvm_routing import with_jvm_block

    df = spark.createDataFrame([(None, None), ("a", True), ("b", False), (None, True)], "s STRING, b BOOLEAN")
    for name, categories in (("s", ("a", "b")), ("b", (False, True))):
        tree = PartitionTree(Schema((LayoutColumn(name, ColumnKind.CATEGORICAL, categories),)),
                             Split(0, -math.inf, Leaf(0), Leaf(1)))
        left = with_jvm_block(spark, df, tree).where("block = 0")
        assert left.where(F.col(name).isNotNull()).count() == 0 and left.count() == df.where(F.col(name).isNull()).count()


def test_the_sample_encodes_a_wall_clock_time_the_session_zone_skips_as_its_wall_clock(spark):
    """02:30 does not exist in Los Angeles on the night clocks go forward: a cast to TIMESTAMP
    (which timestamp_diff makes) read it as 03:30, so the sample drawn there disagreed with the
    sample drawn in any other zone by an hour."""
    from pyspark.sql.types import TimestampNTZType

    from skipstone.table.sample import draw_sample

    df = spark.createDataFrame([(dt.datetime(2024, 3, 10, 2, 30),)], "tn TIMESTAMP_NTZ")
    zone = "spark.sql.session.timeZone"
    try:
        spark.conf.set(zone, "America/Los_Angeles")
        sample = draw_sample(df, {"tn": TimestampNTZType()}, 1, 1)
    finally:
        spark.conf.set(zone, "UTC")
    assert sample.values[0, 0] == (dt.datetime(2024, 3, 10, 2, 30) - dt.datetime(1970, 1, 1)) / dt.timedelta(microseconds=1)
