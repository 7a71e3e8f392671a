"""Versions too large for the driver are evaluated as a Spark job over the metadata table
(issue 12): it must skip exactly the files the driver path skips, and start no job while the
query is planned.

Six files; file i holds 2**i rows, k = 100i .. 100i + 2**i - 1 and s = 'v<k>', so the rows of
the skipped files (stats.rows_skipped) name exactly which files were skipped.
"""
from __future__ import annotations

import json

import pyarrow as pa
import pytest

from conftest import run_both_ways
from datasets import write_tables
from skipstone import BloomFilter, MinMax, Skipstone, ValueList

PREDICATES = [
    "k = 305",
    "k BETWEEN 150 AND 420",
    "k < 0",
    "k >= 200 OR s = 'v3'",
    "s IN ('v100', 'v501')",
    "NOT (k < 400) AND s <> 'x'",
    "t = 'b'",
    "abs(k) > 3",
]


def table_of(file: int) -> pa.Table:
    k = [100 * file + j for j in range(2 ** file)]
    return pa.table({"k": pa.array(k, pa.int64()), "s": [f"v{v}" for v in k],
                     "t": ["a" if file % 2 else "b"] * len(k)})


@pytest.fixture(scope="module")
def view(spark, tmp_path_factory) -> str:
    root = write_tables(str(tmp_path_factory.mktemp("distributed") / "t"), [table_of(i) for i in range(6)])
    Skipstone.for_path(spark, root).build(MinMax("k"), BloomFilter("s"), ValueList("t"))
    spark.read.parquet(root).createOrReplaceTempView("t")
    return "t"


def skipped_files(spark, view: str, predicate: str) -> set[int]:
    _, stats = run_both_ways(spark, f"SELECT * FROM {view} WHERE {predicate}")
    (dataset,) = stats.per_dataset
    rows = dataset.rows_skipped
    return {i for i in range(6) if rows & (1 << i)}


def distributed(spark) -> list[bool]:
    cache = json.loads(spark._jvm.io.skipstone.metadata.MetadataCache.describe())
    return [v["distributed"] for v in cache["versions"]]


@pytest.fixture
def evaluated_with_spark(spark):
    spark._jvm.io.skipstone.Skipstone.clearCache()
    spark.conf.set("spark.skipstone.distributedEvaluation.minFiles", "1")
    yield
    spark.conf.unset("spark.skipstone.distributedEvaluation.minFiles")
    spark._jvm.io.skipstone.Skipstone.clearCache()


def test_distributed_path_skips_the_same_files_as_the_driver_path(spark, view):
    spark._jvm.io.skipstone.Skipstone.clearCache()
    on_driver = {p: skipped_files(spark, view, p) for p in PREDICATES}
    assert distributed(spark) == [False]
    spark._jvm.io.skipstone.Skipstone.clearCache()
    spark.conf.set("spark.skipstone.distributedEvaluation.minFiles", "1")
    try:
        with_spark = {p: skipped_files(spark, view, p) for p in PREDICATES}
        assert distributed(spark) == [True]
    finally:
        spark.conf.unset("spark.skipstone.distributedEvaluation.minFiles")
        spark._jvm.io.skipstone.Skipstone.clearCache()
    assert with_spark == on_driver
    assert on_driver["k = 305"] == {0, 1, 2, 4, 5}
    assert on_driver["s IN ('v100', 'v501')"] == {0, 2, 3, 4}


def test_no_job_starts_while_a_distributed_version_is_planned(spark, view, evaluated_with_spark):
    df = spark.sql(f"SELECT * FROM {view} WHERE k = 305")
    assert spark._jvm.io.skipstone.query.JobCounter.duringOptimization(df._jdf) == 0
    assert distributed(spark) == [True]


def test_bad_min_files_setting_names_it(spark, view):
    spark.conf.set("spark.skipstone.distributedEvaluation.minFiles", "many")
    try:
        with pytest.raises(Exception, match="spark.skipstone.distributedEvaluation.minFiles"):
            spark._jvm.io.skipstone.metadata.CacheConf.distributed(spark._jsparkSession, 10, 10)
    finally:
        spark.conf.unset("spark.skipstone.distributedEvaluation.minFiles")


def test_distributed_path_finds_files_whose_paths_are_escaped_or_not_ascii(spark, tmp_path):
    """Ruled-out paths travel to the driver as UTF-8 bytes and are matched as stored: a
    partition value with a space, a percent sign and non-ASCII letters must still be skipped."""
    root = str(tmp_path / "escaped")
    rows = [(i, p) for p in ("a b", "ü%x", "plain") for i in range(40)]
    df = spark.createDataFrame([(i + 1000 * n, p) for n, (i, p) in enumerate(rows)], "k long, p string")
    df.repartition(3, "p").write.partitionBy("p").parquet(root)
    Skipstone.for_path(spark, root).build(MinMax("k"))
    spark.read.parquet(root).createOrReplaceTempView("escaped")
    query = "SELECT * FROM escaped WHERE k BETWEEN 41000 AND 41005"
    spark._jvm.io.skipstone.Skipstone.clearCache()
    _, on_driver = run_both_ways(spark, query)
    spark._jvm.io.skipstone.Skipstone.clearCache()
    spark.conf.set("spark.skipstone.distributedEvaluation.minFiles", "1")
    try:
        _, with_spark = run_both_ways(spark, query)
        assert distributed(spark) == [True]
    finally:
        spark.conf.unset("spark.skipstone.distributedEvaluation.minFiles")
        spark._jvm.io.skipstone.Skipstone.clearCache()
    (driver,), (distributed_stats,) = on_driver.per_dataset, with_spark.per_dataset
    assert driver.files_skipped == distributed_stats.files_skipped == driver.files_total - 1
    assert driver.rows_skipped == distributed_stats.rows_skipped
