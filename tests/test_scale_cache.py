"""The driver's metadata cache at scale (issue 12): bounded in bytes with LRU eviction, sizes
reported per index kind, no SparkSession held, bloom filters decoded lazily and their
memory given back with their version.

Datasets of 4 files of 20 rows: file i holds k = 100i .. 100i+19 and s = 'v<k>'.
"""
from __future__ import annotations

import json

import pyarrow as pa
import pytest

from conftest import make_active, run_both_ways
from datasets import write_tables
from skipstone import BloomFilter, MinMax, Skipstone
from user_types import LengthRange


def table_of(file: int) -> pa.Table:
    k = [100 * file + j for j in range(20)]
    return pa.table({"k": pa.array(k, pa.int64()), "s": [f"v{v}" for v in k]})


def cache(spark) -> dict:
    return json.loads(spark._jvm.io.skipstone.metadata.MetadataCache.describe())


def cached_dirs(spark) -> list[str]:
    """Metadata directories cached, least recently used first."""
    return [v["dir"] for v in cache(spark)["versions"]]


@pytest.fixture(scope="module")
def datasets(spark, tmp_path_factory) -> list[str]:
    roots = []
    for name in ("a", "b", "c"):
        root = write_tables(str(tmp_path_factory.mktemp("cache") / name), [table_of(i) for i in range(4)])
        spark.read.parquet(root).createOrReplaceTempView(name)
        Skipstone.for_path(spark, root).build(MinMax("k"), BloomFilter("s"))
        roots.append(root)
    return roots


def query(spark, view: str, k: int = 205):
    _, stats = run_both_ways(spark, f"SELECT * FROM {view} WHERE k = {k} AND s = 'v{k}'")
    return stats


def test_sizes_are_reported_per_index_kind(spark, datasets):
    spark._jvm.io.skipstone.Skipstone.clearCache()
    query(spark, "a")
    (version,) = cache(spark)["versions"]
    assert version["files"] == 4
    assert version["bytesByKind"]["minmax"] > 0 and version["bytesByKind"]["bloomfilter"] > 0
    assert version["bytes"] >= sum(version["bytesByKind"].values())


def test_least_recently_used_version_is_evicted_past_max_bytes(spark, datasets):
    spark._jvm.io.skipstone.Skipstone.clearCache()
    query(spark, "a")
    one = cache(spark)["bytes"]
    spark.conf.set("spark.skipstone.metadataCache.maxBytes", str(int(one * 2.5)))
    try:
        query(spark, "a")
        query(spark, "b")
        query(spark, "a")  # a is now more recent than b
        before = cache(spark)["evictions"]
        stats = query(spark, "c")
        dirs = cached_dirs(spark)
        assert len(dirs) == 2 and "/a/" in dirs[0] and "/c/" in dirs[1]
        assert cache(spark)["evictions"] == before + 1
        assert stats.files_skipped == 3
        assert query(spark, "b").files_skipped == 3  # loaded again, same answer
        assert cache(spark)["bytes"] <= int(one * 2.5)
    finally:
        spark.conf.unset("spark.skipstone.metadataCache.maxBytes")


def test_bad_max_bytes_names_the_setting(spark, datasets):
    spark._jvm.io.skipstone.Skipstone.clearCache()
    spark.conf.set("spark.skipstone.metadataCache.maxBytes", "lots")
    try:
        # The wrapper turns the failure into "no skipping"; the message names the setting.
        with pytest.raises(Exception, match="spark.skipstone.metadataCache.maxBytes"):
            spark._jvm.io.skipstone.metadata.CacheConf.maxBytes(spark._jsparkSession)
    finally:
        spark.conf.unset("spark.skipstone.metadataCache.maxBytes")


def test_bloom_filters_are_decoded_only_for_files_min_max_keeps(spark, datasets):
    spark._jvm.io.skipstone.Skipstone.clearCache()
    stats = query(spark, "a", k=205)
    assert stats.files_skipped == 3
    (version,) = cache(spark)["versions"]
    assert list(version["decodedCells"].values()) == [1]


def test_decoded_bloom_memory_is_given_back_with_its_version(spark, datasets):
    spark._jvm.io.skipstone.Skipstone.clearCache()
    assert cache(spark)["decodedBytes"] == 0
    query(spark, "a", k=205)
    assert cache(spark)["decodedBytes"] > 0
    spark._jvm.io.skipstone.Skipstone.clearCache()
    assert cache(spark)["decodedBytes"] == 0


def test_cache_holds_no_session(spark, datasets, tmp_path):
    """Compiled translators live with the version, which every session shares: none may hold
    its session (rule-based indexes resolve clauses with one, so they are compiled per query)."""
    root = write_tables(str(tmp_path / "r"), [table_of(i) for i in range(4)])
    Skipstone.for_path(spark, root).build(LengthRange("s"))
    spark._jvm.io.skipstone.Skipstone.clearCache()
    other = spark.newSession()
    make_active(other)
    try:
        for r in (root, datasets[0]):
            other.read.parquet(r).where("length(s) = 4 AND k = 205").collect()
    finally:
        make_active(spark)
    assert len(cache(spark)["versions"]) == 2
    assert spark._jvm.io.skipstone.metadata.MetadataCache.sessionsReachable() == 0
