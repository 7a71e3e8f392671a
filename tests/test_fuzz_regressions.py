"""One minimal case per class of wrong answer the fuzzer (tests/fuzz, `make fuzz`) found.

Each writes real files, builds the index the fuzzer blamed and compares results with skipping
off and on; each failed before the engine fix for its class (issue 8). docs/fuzzing.md lists
them with the fuzzer's reproducers.
"""
from __future__ import annotations

import decimal
import os
from typing import Any, Callable

import pyarrow as pa
import pytest

import udfs as _test_udfs  # noqa: F401 - Spark's Python workers get this interpreter and path
from conftest import normalized, run_both_ways
from datasets import write_tables
from fuzz import udfs as fuzz_udfs
from fuzz.indexgen import HalfFlag, IntPartRange
from skipstone import Formatted, GeoBox, MetricDist, MinMax, Skipstone, ValueList

D = decimal.Decimal


@pytest.fixture(scope="module", autouse=True)
def _udfs(spark):
    fuzz_udfs.register(spark)


def both_ways_df(spark: Any, query: Callable[[], Any]) -> list[tuple[Any, ...]]:
    """run_both_ways for a DataFrame-API query (e.g. an empty IN list, which SQL cannot write)."""
    spark.conf.set("spark.skipstone.enabled", "false")
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    try:
        expected = normalized(query().collect())
        spark.conf.set("spark.skipstone.enabled", "true")
        actual = normalized(query().collect())
    finally:
        spark.conf.set("spark.skipstone.enabled", "true")
        spark.conf.set("spark.sql.parquet.filterPushdown", "true")
    assert actual == expected, "results differ with skipping on"
    return actual


def test_top_level_dotted_column_is_not_the_struct_field(spark, tmp_path):
    struct = pa.struct([("b", pa.int32())])
    tables = [pa.table({"a": pa.array([{"b": 1}], struct), "a.b": pa.array([100], pa.int32())}),
              pa.table({"a": pa.array([{"b": 200}], struct), "a.b": pa.array([2], pa.int32())})]
    root = write_tables(str(tmp_path / "d"), tables)
    Skipstone.for_path(spark, root).build(ValueList("a.`b`"))  # the struct field
    rows, _ = run_both_ways(spark, f"SELECT `a.b` FROM parquet.`{root}` WHERE `a.b` > 50", parquet_pushdown=False)
    assert rows == [(100,)]


def test_rule_pattern_literal_compares_exactly(spark, tmp_path):
    root = write_tables(str(tmp_path / "d"), [pa.table({"x": pa.array([0, 0], pa.int64())}),
                                              pa.table({"x": pa.array([1], pa.int64())})])
    Skipstone.for_path(spark, root).build(HalfFlag("x"))
    rows, _ = run_both_ways(spark, f"SELECT x FROM parquet.`{root}` WHERE x >= 0", parquet_pushdown=False)
    assert len(rows) == 3


def test_int_pattern_does_not_match_other_casts(spark, tmp_path):
    dec = pa.decimal128(10, 2)
    root = write_tables(str(tmp_path / "d"), [pa.table({"d": pa.array([D("3.70")], dec)}),
                                              pa.table({"d": pa.array([D("1.00")], dec)})])
    Skipstone.for_path(spark, root).build(IntPartRange("d"))
    rows, _ = run_both_ways(spark, f"SELECT d FROM parquet.`{root}` WHERE CAST(d AS DOUBLE) > 3.5")
    assert rows == [(D("3.70"),)]


def test_formatted_does_not_look_through_a_cast_in_the_udf_argument(spark, tmp_path):
    root = write_tables(str(tmp_path / "d"), [pa.table({"i": pa.array([3], pa.int32())}),
                                              pa.table({"i": pa.array([4], pa.int32())})])
    Skipstone.for_path(spark, root).build(Formatted("i", fuzz_udfs.fz_str, "fz_str"))
    rows, _ = run_both_ways(spark, f"SELECT i FROM parquet.`{root}` WHERE fz_str(CAST(i AS DOUBLE)) = '3.0'")
    assert rows == [(3,)]


def _many_files(tmp_path, n: int = 6) -> str:
    return write_tables(str(tmp_path / "d"), [pa.table({"i": pa.array(list(range(10 * k, 10 * k + 10)), pa.int32())})
                                              for k in range(n)])


def test_rand_first_conjunct_stops_skipping(spark, tmp_path):
    root = _many_files(tmp_path)
    Skipstone.for_path(spark, root).build(MinMax("i"))
    # Spark's own Parquet pushdown of `i > 35` changes which rows rand() sees, so both runs go
    # without it: only Skipstone differs between them.
    run_both_ways(spark, f"SELECT i FROM parquet.`{root}` WHERE rand(42) < 0.5 AND i > 35", False)


def test_monotonically_increasing_id_first_conjunct_stops_skipping(spark, tmp_path):
    root = _many_files(tmp_path)
    Skipstone.for_path(spark, root).build(MinMax("i"))
    run_both_ways(spark, f"SELECT i FROM parquet.`{root}` WHERE monotonically_increasing_id() < 8589934600 AND i > 35",
                  False)


# Not found failing by the fuzzer (it generates empty IN lists through the DataFrame API); kept
# as a guard since issue 8 names the class: `x NOT IN ()` is TRUE for every row, NULL included.
def test_not_in_empty_list_keeps_null_only_files(spark, tmp_path):
    root = write_tables(str(tmp_path / "d"), [pa.table({"i": pa.array([None, None], pa.int32())}),
                                              pa.table({"i": pa.array([1], pa.int32())})])
    Skipstone.for_path(spark, root).build(MinMax("i"), ValueList("i"))
    from pyspark.sql import functions as F

    rows = both_ways_df(spark, lambda: spark.read.parquet(root).filter(~F.col("i").isin([])))
    assert len(rows) == 3


def test_csv_timestamps_queried_in_another_time_zone(spark, tmp_path):
    root = str(tmp_path / "d")
    os.makedirs(root)
    for n, ts in enumerate(["2024-03-10 00:00:00", "2024-03-10 10:00:00"]):
        with open(os.path.join(root, f"part-{n}.csv"), "w") as out:
            out.write(f"ts,i\n{ts},{n}\n")
    options = {"header": "true", "inferSchema": "true"}
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    try:
        Skipstone.for_path(spark, root, format="csv", options=options).build(MinMax("ts"))
        spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
        df = lambda: spark.read.options(**options).csv(root).filter("ts = TIMESTAMP'2024-03-10 00:00:00'")  # noqa: E731
        rows = both_ways_df(spark, df)
        assert len(rows) == 1
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")

