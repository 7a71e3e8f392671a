"""An Iceberg table changes after it was indexed: deletes (copy-on-write and merge-on-read),
compaction, columns added and renamed, time travel. Every query must return what Iceberg alone
returns; the stats say what was read and why. Tables keep no Iceberg column statistics, so
that Iceberg's planning rules no file out and what is skipped is Skipstone's.
"""
from __future__ import annotations

import pytest

import skipstone
from conftest import run_both_ways, run_df_both_ways
from iceberg_tables import (current_snapshot, delete_files, live_files, merge_on_read, new_table, register_catalog,
                            require_iceberg, write)
from skipstone import BloomFilter, MinMax, Skipstone, ValueList

SCHEMA = "k int, s string"


@pytest.fixture(scope="module", autouse=True)
def catalog(spark, tmp_path_factory):
    require_iceberg(spark)
    register_catalog(spark, str(tmp_path_factory.mktemp("warehouse")))


def four_files(spark, table: str) -> str:
    """File i holds the keys k with k % 4 == i: Iceberg's min/max rules no file out."""
    for i in range(4):
        write(spark, table, [(k, f"s{i}") for k in range(400) if k % 4 == i], SCHEMA)
    return table


def stats_of(spark) -> skipstone.DatasetStats:
    (only,) = skipstone.last_query_stats(spark).per_dataset
    return only


def at_snapshot(spark, table: str, snapshot: int, where: str):
    return lambda: spark.read.option("versionAsOf", snapshot).table(table).where(where)


def test_rows_a_position_delete_hides_stay_hidden_and_their_neighbours_are_found(spark):
    table = four_files(spark, merge_on_read(spark, SCHEMA))
    Skipstone.for_table(spark, table).build(BloomFilter("k"))

    spark.sql(f"DELETE FROM {table} WHERE k = 41")

    assert delete_files(spark, table) == 1
    assert run_both_ways(spark, f"SELECT k FROM {table} WHERE k IN (41, 45)")[0] == [(45,)]
    stats = stats_of(spark)
    assert (stats.files_skipped, stats.files_unindexed) == (3, 0)


def test_an_index_built_after_a_position_delete_still_finds_the_rows_an_older_snapshot_shows(spark):
    # The index is built over each data file's full contents, rows a delete file hides included:
    # an index of the visible rows only would skip this file for a read of the snapshot before
    # the delete, and lose the row.
    table = four_files(spark, merge_on_read(spark, SCHEMA))
    before = current_snapshot(spark, table)
    spark.sql(f"DELETE FROM {table} WHERE k = 41")
    assert delete_files(spark, table) == 1
    Skipstone.for_table(spark, table).build(BloomFilter("k"), ValueList("s"))

    rows, _ = run_df_both_ways(spark, at_snapshot(spark, table, before, "k = 41"))

    assert [r[0] for r in rows] == [41]
    stats = stats_of(spark)
    assert (stats.files_skipped, stats.files_unindexed) == (3, 0)


def test_a_copy_on_write_delete_rewrites_a_file_that_is_read_until_a_refresh_indexes_it(spark):
    table = four_files(spark, new_table(spark, SCHEMA))
    ds = Skipstone.for_table(spark, table).build(BloomFilter("k"))

    spark.sql(f"DELETE FROM {table} WHERE k = 41")

    assert delete_files(spark, table) == 0 and len(live_files(spark, table)) == 4
    assert run_both_ways(spark, f"SELECT k FROM {table} WHERE k IN (41, 45)")[0] == [(45,)]
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped, stats.files_unindexed) == (4, 3, 1)
    ds.refresh()
    run_both_ways(spark, f"SELECT k FROM {table} WHERE k = 45")
    assert stats_of(spark).files_skipped == 3


def test_compaction_makes_new_files_that_are_read_until_a_refresh_indexes_them(spark):
    table = four_files(spark, new_table(spark, SCHEMA))
    ds = Skipstone.for_table(spark, table).build(MinMax("k"), ValueList("k", max_size=1000))
    write(spark, table, [(k, "late") for k in range(1000, 1100)], SCHEMA)
    spark.sql(f"CALL ice.system.rewrite_data_files(table => '{table.split('.', 1)[1]}', "
              "options => map('rewrite-all', 'true'))").collect()
    assert len(live_files(spark, table)) == 1

    # 500 is inside the new file's key range (Iceberg cannot rule it out) and in none of its rows
    run_both_ways(spark, f"SELECT count(*) FROM {table} WHERE k = 500")
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped, stats.files_unindexed) == (1, 0, 1)

    ds.refresh()

    (row,) = {(r.files_indexed, r.table_version) for r in ds.describe().collect()}
    assert row == (1, current_snapshot(spark, table))
    run_both_ways(spark, f"SELECT count(*) FROM {table} WHERE k = 500")
    assert stats_of(spark).files_skipped == 1


def test_a_column_added_later_leaves_the_old_index_usable_and_older_files_hold_no_value_of_it(spark):
    table = four_files(spark, new_table(spark, SCHEMA))
    ds = Skipstone.for_table(spark, table).build(BloomFilter("k"))
    spark.sql(f"ALTER TABLE {table} ADD COLUMN extra int")
    write(spark, table, [(k, "wide", k * 2) for k in range(1, 400, 4)], "k int, s string, extra int")

    rows, _ = run_both_ways(spark, f"SELECT k, s, extra FROM {table} WHERE k = 42")
    assert rows == [(42, "s2", None)]
    stats = stats_of(spark)
    assert (stats.files_skipped, stats.files_unindexed) == (3, 1)

    # the files written before the column existed hold no value of it: MinMax rules them out
    ds.build(BloomFilter("k"), MinMax("extra"))
    assert run_both_ways(spark, f"SELECT k FROM {table} WHERE extra = 82")[0] == [(41,)]
    assert stats_of(spark).files_skipped == 4
    assert run_both_ways(spark, f"SELECT count(*) FROM {table} WHERE extra IS NULL")[0] == [(400,)]
    assert stats_of(spark).files_skipped == 1


def test_an_index_on_a_renamed_column_finds_its_values_under_the_new_name_never_another_columns(spark):
    table = four_files(spark, new_table(spark, SCHEMA))
    ds = Skipstone.for_table(spark, table).build(ValueList("s"))
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN s TO label")
    # a new column takes the old name: the index of the old `s` must not answer for it, or
    # `s IS NULL` would skip the four older files, whose old `s` has no NULL (their new `s` is all NULL)
    spark.sql(f"ALTER TABLE {table} ADD COLUMN s string")
    write(spark, table, [(2, "new", "s1")], "k int, label string, s string")

    assert run_both_ways(spark, f"SELECT k FROM {table} WHERE s = 's1'")[0] == [(2,)]
    assert run_both_ways(spark, f"SELECT count(*) FROM {table} WHERE s IS NULL")[0] == [(400,)]
    stats = stats_of(spark)
    assert stats.files_skipped == 0 and any("ValueList(s" in why for why in stats.unanswered)
    assert len(run_both_ways(spark, f"SELECT k FROM {table} WHERE label = 's1'")[0]) == 100

    # built again, the index reads the renamed column's values from the older files by field id
    ds.build(ValueList("label"), ValueList("s"))
    assert len(run_both_ways(spark, f"SELECT k FROM {table} WHERE label = 's1'")[0]) == 100
    assert stats_of(spark).files_skipped == 4
    assert run_both_ways(spark, f"SELECT k FROM {table} WHERE s = 's1'")[0] == [(2,)]
    assert stats_of(spark).files_skipped == 4


def test_time_travel_uses_the_index_for_the_files_it_covers_and_reads_the_rest(spark):
    table = new_table(spark, SCHEMA)
    write(spark, table, [(k, "first") for k in range(0, 400, 2)], SCHEMA)
    write(spark, table, [(k, "second") for k in range(1, 400, 2)], SCHEMA)
    older = current_snapshot(spark, table)
    Skipstone.for_table(spark, table).build(BloomFilter("k"))
    write(spark, table, [(k, "third") for k in range(0, 400, 3)], SCHEMA)
    newer = current_snapshot(spark, table)
    spark.sql(f"DELETE FROM {table} WHERE s = 'first'")

    rows, _ = run_df_both_ways(spark, at_snapshot(spark, table, older, "k = 7"))
    assert rows == [(7, "second")]
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped, stats.files_unindexed) == (2, 1, 0)

    rows, _ = run_both_ways(spark, f"SELECT * FROM {table} VERSION AS OF {newer} WHERE k = 6")
    assert sorted(rows) == [(6, "first"), (6, "third")]
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped, stats.files_unindexed) == (3, 1, 1)
    assert any(f"at snapshot {newer}" in why for why in stats.unanswered)


def test_time_travel_to_a_snapshot_before_the_table_had_a_column_ignores_the_index_on_it(spark):
    table = four_files(spark, new_table(spark, SCHEMA))
    older = current_snapshot(spark, table)
    spark.sql(f"ALTER TABLE {table} ADD COLUMN extra int")
    write(spark, table, [(1, "wide", 7)], "k int, s string, extra int")
    Skipstone.for_table(spark, table).build(MinMax("extra"), BloomFilter("k"))

    rows, _ = run_df_both_ways(spark, at_snapshot(spark, table, older, "k = 41"))
    assert rows == [(41, "s1")]
    assert stats_of(spark).files_skipped == 3
