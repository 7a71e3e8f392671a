"""The JVM build path (io.skipstone.indexing.IndexBuild) used alone, as SQL commands and Scala
callers use it: index requests as JSON, no Python index objects involved."""
from __future__ import annotations

import json
import math
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import normalized, run_both_ways
from skipstone import (BloomFilter, Formatted, GapList, Hybrid, Metric, MetricDist, MinMax, Prefix, Skipstone,
                       Suffix, ValueList)
from skipstone.errors import SkipstoneError
from skipstone.session import java_call

NAMES = ("alpha", "bravo", "charlie", "delta")
EXTENSIONS = ("csv", "txt", "log", "bin")

# Every built-in kind SQL can build, as index.json stores it: kind, columns, params (settings only).
REQUESTS = [
    {"kind": "minmax", "columns": ["k"]},
    {"kind": "gaplist", "columns": ["price"], "params": {"gaps": "3"}},
    {"kind": "valuelist", "columns": ["name"]},
    {"kind": "bloomfilter", "columns": ["k"]},
    {"kind": "hybrid", "columns": ["name"]},
    {"kind": "prefix", "columns": ["name"], "params": {"length": "3"}},
    {"kind": "suffix", "columns": ["name"], "params": {"length": "2"}},
    {"kind": "formatted", "columns": ["name"], "params": {"expression": "upper({col})"}},
    {"kind": "metricdist", "columns": ["name"],
     "params": {"metric.udf": "levenshtein", "metric.sql": "levenshtein({a}, {b})", "origin": "''"}},
]

# The same indexes through the Python API.
PYTHON_INDEXES = (MinMax("k"), GapList("price", gaps=3), ValueList("name"), BloomFilter("k"), Hybrid("name"),
                  Prefix("name", 3), Suffix("name", 2), Formatted("name", "upper({col})"),
                  MetricDist("name", Metric.levenshtein(), ""))


def write_dataset(root: str, files: int) -> None:
    """File i holds k in [100 i, 100 i + 40) by steps of 2, names like `alpha-3.csv`, prices with a hole."""
    os.makedirs(root)
    for i in range(files):
        rows = range(20)
        price = [None if j == 7 else (math.nan if (i, j) == (2, 3) else 10.0 * i + (j if j < 10 else j + 50))
                 for j in rows]
        table = pa.table({"k": pa.array([100 * i + 2 * j for j in rows], pa.int64()),
                          "name": [f"{NAMES[i % 4]}-{j}.{EXTENSIONS[i % 4]}" for j in rows],
                          "price": pa.array(price, pa.float64()),
                          "lat": [float(i + j / 100) for j in rows], "lon": [float(-i - j / 100) for j in rows]})
        pq.write_table(table, os.path.join(root, f"part-{i:05d}.parquet"))


def jvm_build(spark, root: str, requests: list[dict]) -> int:
    builds = spark._jvm.io.skipstone.indexing.IndexBuild
    data = spark.read.parquet(root)
    return int(java_call(builds.build, spark._jsparkSession, data._jdf, root, "parquet", "{}", None,
                         json.dumps(requests), None, True, None))  # None: no footer key (plaintext metadata)


def published(spark, root: str) -> tuple[int, list[dict], list[tuple]]:
    """(version, index.json's indexes, metadata rows by path) of the dataset's current version."""
    version, table_dir, definition = java_call(spark._jvm.io.skipstone.Skipstone.currentVersion,
                                               spark._jsparkSession, root)
    rows = spark.read.parquet(table_dir).orderBy("path").collect()
    return int(version), json.loads(definition)["indexes"], [tuple(r) for r in rows]


@pytest.fixture(scope="module")
def dataset(spark, tmp_path_factory):
    root = str(tmp_path_factory.mktemp("jvm_build") / "items")
    write_dataset(root, 4)
    root = spark._jvm.io.skipstone.Skipstone.qualify(spark._jsparkSession, root)
    jvm_build(spark, root, REQUESTS)
    return root


@pytest.mark.parametrize("predicate", [
    "k = 106", "k IN (4, 207)", "price BETWEEN 31 AND 55", "name = 'bravo-3.txt'", "name LIKE 'cha%'",
    "name LIKE '%.log'", "upper(name) = 'DELTA-1.BIN'", "levenshtein(name, 'charlie-1.log') < 1",
])
def test_every_built_in_kind_built_in_the_jvm_skips_without_changing_results(spark, dataset, predicate):
    rows, stats = run_both_ways(spark, f"SELECT k, name FROM parquet.`{dataset}` WHERE {predicate}")
    assert rows, "each predicate matches rows of one file"
    assert stats.files_total == 4 and stats.files_skipped == 3


def test_jvm_built_metadata_equals_what_the_python_api_builds(spark, dataset):
    _, jvm_indexes, jvm_rows = published(spark, dataset)
    Skipstone.for_path(spark, dataset).build(*PYTHON_INDEXES)
    _, python_indexes, python_rows = published(spark, dataset)
    assert python_indexes == jvm_indexes
    assert [m for ix in jvm_indexes for m in ix["metadataColumns"].values()][:3] == ["minmax_0_min", "minmax_0_max",
                                                                                       "minmax_0_nulls"]
    assert len(python_rows) == 4 and normalized(python_rows) == normalized(jvm_rows)


def test_kind_needing_python_fails_from_the_jvm_naming_the_index(spark, dataset):
    before, _, _ = published(spark, dataset)
    with pytest.raises(SkipstoneError, match=r"GeoBox\(lat, lon, boxes=4\) computes role 'boxes' with the Python "
                                             r"function .*so it needs Python"):
        jvm_build(spark, dataset, [{"kind": "minmax", "columns": ["k"]}, {"kind": "geobox", "columns": ["lat", "lon"]}])
    assert published(spark, dataset)[0] == before, "a failed build publishes nothing"


def test_jvm_refresh_indexes_a_new_file_reading_it_as_the_build_did(spark, tmp_path):
    root = str(tmp_path / "growing")
    write_dataset(root, 2)
    root = spark._jvm.io.skipstone.Skipstone.qualify(spark._jsparkSession, root)
    jvm_build(spark, root, [{"kind": "minmax", "columns": ["k"]}, {"kind": "prefix", "columns": ["name"],
                                                                   "params": {"length": "3"}}])
    pq.write_table(pq.read_table(os.path.join(root[len("file:"):], "part-00001.parquet")).set_column(
        0, "k", pa.array(range(900, 920), pa.int64())), os.path.join(root[len("file:"):], "part-00009.parquet"))
    version = int(java_call(spark._jvm.io.skipstone.indexing.IndexBuild.refresh, spark._jsparkSession, root))
    assert version == 2 and len(published(spark, root)[2]) == 3
    rows, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{root}` WHERE k = 905")
    assert rows == [(905,)] and stats.files_skipped == 2 and stats.per_dataset[0].files_unindexed == 0


def test_request_with_an_unknown_kind_is_refused_naming_it(spark, dataset):
    with pytest.raises(SkipstoneError, match="index kind 'zorder' is not known"):
        jvm_build(spark, dataset, [{"kind": "zorder", "columns": ["k"]}])
