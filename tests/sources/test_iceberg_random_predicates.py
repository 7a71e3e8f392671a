"""Property: on an Iceberg table, skipping never changes a result, under several reads.

Random rows (ints, strings and doubles with NULL, NaN and -0.0) in files whose key ranges
overlap; random AND/OR/NOT trees of comparisons, IN and IS NULL; each run with skipping off and
on. Reads: the current snapshot of a table whose position deletes and appended file came after
the build, with Iceberg's column statistics off (Skipstone decides alone) and on (Iceberg prunes
first), and time travel to the snapshot the index was built from.
"""
from __future__ import annotations

import random

import pytest

from conftest import run_both_ways, run_df_both_ways
from iceberg_tables import current_snapshot, new_table, register_catalog, require_iceberg, write
from random_predicates import SCHEMA, predicate, random_rows
from skipstone import BloomFilter, MinMax, Skipstone, ValueList

EXAMPLES = 10


@pytest.fixture(scope="module", autouse=True)
def catalog(spark, tmp_path_factory):
    require_iceberg(spark)
    register_catalog(spark, str(tmp_path_factory.mktemp("warehouse")))


def indexed_table(spark, rng: random.Random, column_stats: bool) -> tuple[str, int]:
    """Six files written in three commits, indexed; then one more commit and position deletes."""
    table = new_table(spark, SCHEMA, column_stats=column_stats, **{"write.delete.mode": "merge-on-read"})
    for _ in range(3):
        write(spark, table, random_rows(rng, 120), SCHEMA, files=2)
    indexed = current_snapshot(spark, table)
    Skipstone.for_table(spark, table).build(BloomFilter("a"), ValueList("s"), MinMax("d"), MinMax("a"))
    write(spark, table, random_rows(rng, 40), SCHEMA)
    spark.sql(f"DELETE FROM {table} WHERE a = 12")
    return table, indexed


@pytest.fixture(scope="module")
def table(spark, catalog):
    return indexed_table(spark, random.Random(20261126), column_stats=False)


def test_random_predicates_return_what_iceberg_alone_returns(spark, table):
    name, _ = table
    rng = random.Random(1)
    skipped = 0
    for _ in range(EXAMPLES):
        _, stats = run_both_ways(spark, f"SELECT * FROM {name} WHERE {predicate(rng)}", parquet_pushdown=False)
        skipped += stats.files_skipped
    assert skipped > 0


def test_random_predicates_on_the_indexed_snapshot_by_time_travel(spark, table):
    name, indexed = table
    rng = random.Random(2)
    skipped = 0
    for _ in range(EXAMPLES):
        where = predicate(rng)
        _, stats = run_df_both_ways(spark, lambda: spark.read.option("versionAsOf", indexed).table(name).where(where))
        skipped += stats.files_skipped
    assert skipped > 0


def test_random_predicates_where_icebergs_statistics_prune_first(spark):
    rng = random.Random(3)
    name, _ = indexed_table(spark, rng, column_stats=True)
    for _ in range(EXAMPLES):
        run_both_ways(spark, f"SELECT * FROM {name} WHERE {predicate(rng)}", parquet_pushdown=False)
