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
from skipstone import BloomFilter, MinMax, Skipstone, ValueList

SCHEMA = "a int, s string, d double"
INTS = [None, -3, 0, 1, 2, 5, 8, 12, 40, 41]
STRINGS = [None, "", "a", "ab", "b", "ba", "c%", "zz"]
DOUBLES = [None, -1.5, -0.0, 0.0, 0.5, 7.25, float("nan"), float("inf")]
CONSTANTS = {
    "a": ["-4", "0", "1", "5", "12", "13", "41", "NULL"],
    "s": ["''", "'a'", "'ab'", "'b'", "'c%'", "'q'", "NULL"],
    "d": ["-1.5", "-0.0D", "0.0D", "0.5", "7.25", "CAST('NaN' AS DOUBLE)", "NULL"],
}
EXAMPLES = 10


@pytest.fixture(scope="module", autouse=True)
def catalog(spark, tmp_path_factory):
    require_iceberg(spark)
    register_catalog(spark, str(tmp_path_factory.mktemp("warehouse")))


def random_rows(rng: random.Random, n: int) -> list[tuple]:
    """Rows whose values come from a few of each pool, so that commits differ and indexes can tell them apart."""
    ints, strings, doubles = rng.sample(INTS, 3), rng.sample(STRINGS, 3), rng.sample(DOUBLES, 3)
    return [(rng.choice(ints), rng.choice(strings), rng.choice(doubles)) for _ in range(n)]


def leaf(rng: random.Random) -> str:
    column = rng.choice(list(CONSTANTS))
    constants = CONSTANTS[column]
    kind = rng.randrange(4)
    if kind == 0:
        return f"{column} {rng.choice(['=', '<', '<=', '>', '>=', '<=>', '!='])} {rng.choice(constants)}"
    if kind == 1:
        return f"{column} IN ({', '.join(rng.sample(constants, 3))})"
    if kind == 2:
        return f"{column} IS {rng.choice(['', 'NOT '])}NULL"
    return f"NOT ({column} = {rng.choice(constants)})"


def predicate(rng: random.Random, depth: int = 2) -> str:
    if depth == 0 or rng.random() < 0.3:
        return leaf(rng)
    op = rng.choice(["AND", "OR"])
    return f"({predicate(rng, depth - 1)} {op} {predicate(rng, depth - 1)})"


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
