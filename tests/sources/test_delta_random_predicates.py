"""Property: on a Delta table, skipping never changes a result, under several read contexts.

Random rows (ints, strings and doubles with NULL, NaN and -0.0) in files whose key ranges
overlap, so that Delta's own statistics leave most files to Skipstone; random AND/OR/NOT trees
of comparisons, IN and IS NULL; each run with skipping off and on. Read contexts: Delta's stats
skipping on (its prepared, pinned listing) and off (its unprepared one), and time travel to a
version some of whose files were removed since the index was built.
"""
from __future__ import annotations

import random

import pytest

from conftest import run_both_ways, run_df_both_ways
from delta_tables import current_version, require_delta, sql_table, write
from random_predicates import SCHEMA, predicate, random_rows
from skipstone import BloomFilter, MinMax, Skipstone, ValueList

EXAMPLES = 10


@pytest.fixture(autouse=True)
def delta(spark):
    require_delta(spark)


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    """Six files written in three commits, indexed; then one more commit and a removed file.
    Made once: the tests only read it, each with predicates of its own from the shared generator."""
    require_delta(spark)
    rng = random.Random(20261126)
    path = str(tmp_path_factory.mktemp("delta_random") / "t")
    for _ in range(3):
        write(spark, path, random_rows(rng, 120), SCHEMA, files=2)
    indexed = current_version(spark, path)
    Skipstone.for_path(spark, path, format="delta").build(
        BloomFilter("a"), ValueList("s"), MinMax("d"), MinMax("a"))
    write(spark, path, random_rows(rng, 40), SCHEMA)
    spark.sql(f"DELETE FROM {sql_table(path)} WHERE a = 12")
    return path, indexed, rng


def test_random_predicates_return_what_delta_alone_returns(spark, table):
    path, _, rng = table
    skipped = 0
    for _ in range(EXAMPLES):
        where = predicate(rng)
        _, stats = run_both_ways(spark, f"SELECT * FROM {sql_table(path)} WHERE {where}", parquet_pushdown=False)
        skipped += stats.files_skipped
    assert skipped > 0


def test_random_predicates_without_deltas_stats_skipping(spark, table):
    path, _, rng = table
    spark.conf.set("spark.databricks.delta.stats.skipping", "false")
    try:
        for _ in range(EXAMPLES):
            run_both_ways(spark, f"SELECT * FROM {sql_table(path)} WHERE {predicate(rng)}", parquet_pushdown=False)
    finally:
        spark.conf.unset("spark.databricks.delta.stats.skipping")


def test_random_predicates_on_the_indexed_version_by_time_travel(spark, table):
    path, indexed, rng = table
    skipped = 0
    for _ in range(EXAMPLES):
        where = predicate(rng)
        _, stats = run_df_both_ways(
            spark, lambda: spark.read.format("delta").option("versionAsOf", indexed).load(path).where(where))
        skipped += stats.files_skipped
    assert skipped > 0
