"""A Delta table changes after it was indexed: deletion vectors, OPTIMIZE, a column added, time
travel. Every query must return what Delta alone returns; the stats say what was read and why.
"""
from __future__ import annotations

import pytest

import skipstone
from conftest import run_both_ways, run_df_both_ways
from delta_tables import current_version, has_deletion_vectors, live_files, require_delta, sql_table, write
from skipstone import BloomFilter, MinMax, Skipstone, ValueList

SCHEMA = "k int, s string"


@pytest.fixture(autouse=True)
def delta(spark):
    require_delta(spark)


@pytest.fixture
def deletion_vectors(spark):
    """New tables get deletion vectors: DELETE marks rows instead of rewriting files."""
    key = "spark.databricks.delta.properties.defaults.enableDeletionVectors"
    spark.conf.set(key, "true")
    yield
    spark.conf.unset(key)


def four_files(spark, path: str) -> None:
    """File i holds the keys k with k % 4 == i: Delta's min/max rules no file out."""
    for i in range(4):
        write(spark, path, [(k, f"s{i}") for k in range(400) if k % 4 == i], SCHEMA)


def stats_of(spark) -> skipstone.DatasetStats:
    (only,) = skipstone.last_query_stats(spark).per_dataset
    return only


def at_version(spark, path: str, version: int, where: str):
    return lambda: spark.read.format("delta").option("versionAsOf", version).load(path).where(where)


def test_rows_hidden_by_a_deletion_vector_stay_hidden_and_their_neighbours_are_found(spark, tmp_path, deletion_vectors):
    path = str(tmp_path / "t")
    four_files(spark, path)
    Skipstone.for_path(spark, path, format="delta").build(BloomFilter("k"))

    spark.sql(f"DELETE FROM {sql_table(path)} WHERE k = 41")

    assert has_deletion_vectors(path)
    assert run_both_ways(spark, f"SELECT k FROM {sql_table(path)} WHERE k IN (41, 45)")[0] == [(45,)]
    assert stats_of(spark).files_skipped == 3


def test_an_index_built_after_a_delete_still_finds_the_rows_an_older_version_shows(spark, tmp_path, deletion_vectors):
    # The index is built over each file's full contents, rows a deletion vector hides included:
    # an index of the visible rows only would skip this file for a read of the version before
    # the delete, and lose the row.
    path = str(tmp_path / "t")
    four_files(spark, path)
    before = current_version(spark, path)
    spark.sql(f"DELETE FROM {sql_table(path)} WHERE k = 41")
    assert has_deletion_vectors(path)
    Skipstone.for_path(spark, path, format="delta").build(BloomFilter("k"), ValueList("s"))

    rows, _ = run_df_both_ways(spark, at_version(spark, path, before, "k = 41"))

    assert [r[0] for r in rows] == [41]
    stats = stats_of(spark)
    assert (stats.files_skipped, stats.files_unindexed) == (3, 0)


def test_optimize_makes_new_files_that_are_read_until_a_refresh_indexes_them(spark, tmp_path):
    path = str(tmp_path / "t")
    four_files(spark, path)
    ds = Skipstone.for_path(spark, path, format="delta").build(MinMax("k"), ValueList("k", max_size=1000))
    write(spark, path, [(k, "late") for k in range(1000, 1100)], SCHEMA)
    spark.sql(f"OPTIMIZE {sql_table(path)}").collect()
    assert len(live_files(spark, path)) == 1

    # 500 is inside the new file's key range (Delta cannot rule it out) and in none of its rows
    run_both_ways(spark, f"SELECT count(*) FROM {sql_table(path)} WHERE k = 500")
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped, stats.files_unindexed) == (1, 0, 1)

    ds.refresh()

    (row,) = {(r.files_indexed, r.table_version) for r in ds.describe().collect()}
    assert row == (1, current_version(spark, path))
    run_both_ways(spark, f"SELECT count(*) FROM {sql_table(path)} WHERE k = 500")
    assert stats_of(spark).files_skipped == 1


def test_a_column_added_by_merge_schema_leaves_the_old_index_usable(spark, tmp_path):
    path = str(tmp_path / "t")
    four_files(spark, path)
    ds = Skipstone.for_path(spark, path, format="delta").build(BloomFilter("k"))
    write(spark, path, [(k, "wide", k * 2) for k in range(1, 400, 4)], "k int, s string, extra int",
          mergeSchema="true")

    rows, _ = run_both_ways(spark, f"SELECT k, s, extra FROM {sql_table(path)} WHERE k = 42")
    assert rows == [(42, "s2", None)]
    stats = stats_of(spark)
    assert (stats.files_skipped, stats.files_unindexed) == (3, 1)
    assert run_both_ways(spark, f"SELECT k FROM {sql_table(path)} WHERE extra = 82")[0] == [(41,)]

    ds.refresh()
    run_both_ways(spark, f"SELECT k FROM {sql_table(path)} WHERE k = 42")
    stats = stats_of(spark)
    assert (stats.files_skipped, stats.files_unindexed) == (4, 0)

    # the files written before the column existed hold no value of it: MinMax rules them out
    ds.build(BloomFilter("k"), MinMax("extra"))
    assert run_both_ways(spark, f"SELECT k FROM {sql_table(path)} WHERE extra = 82")[0] == [(41,)]
    assert stats_of(spark).files_skipped == 4


def test_time_travel_uses_the_index_for_the_files_it_covers_and_reads_the_rest(spark, tmp_path):
    path = str(tmp_path / "t")
    write(spark, path, [(k, "first") for k in range(0, 400, 2)], SCHEMA)
    write(spark, path, [(k, "second") for k in range(1, 400, 2)], SCHEMA)
    older = current_version(spark, path)
    Skipstone.for_path(spark, path, format="delta").build(BloomFilter("k"))
    write(spark, path, [(k, "third") for k in range(0, 400, 3)], SCHEMA)
    spark.sql(f"DELETE FROM {sql_table(path)} WHERE s = 'first'")

    rows, _ = run_df_both_ways(spark, at_version(spark, path, older, "k = 7"))
    assert rows == [(7, "second")]
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped, stats.files_unindexed) == (2, 1, 0)

    rows, _ = run_df_both_ways(spark, at_version(spark, path, older + 1, "k = 6"))
    assert sorted(rows) == [(6, "first"), (6, "third")]
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped, stats.files_unindexed) == (3, 1, 1)
    assert any(f"at version {older + 1}" in why for why in stats.unanswered)
