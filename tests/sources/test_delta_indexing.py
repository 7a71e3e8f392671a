"""Skipstone's indexes built over Delta Lake tables: over the snapshot's live files, at a version.

Every table here spreads the key ``k`` over all files (file ``i`` holds the ``k`` with ``k % 4 ==
i``), so Delta's own min/max statistics rule no file out and what is skipped is Skipstone's.
"""
from __future__ import annotations

import os

import pytest

import skipstone
from conftest import run_both_ways
from delta_tables import (current_version, live_files, parquet_files_on_disk, require_delta, sql_table,
                          write)
from skipstone import BloomFilter, MinMax, Rule, Skipstone, SkipstoneError, UdfMapping, ValueList

SCHEMA = "k int, s string, v double"


@pytest.fixture(autouse=True)
def delta(spark):
    require_delta(spark)


def rows_of_file(i: int, keys: int = 400) -> list[tuple[int, str, float]]:
    return [(k, f"s{k % 4}", k / 10) for k in range(keys) if k % 4 == i]


def four_files(spark, path: str) -> None:
    for i in range(4):
        write(spark, path, rows_of_file(i), SCHEMA)


def stats_of(spark) -> skipstone.DatasetStats:
    (only,) = skipstone.last_query_stats(spark).per_dataset
    return only


def test_an_index_covers_the_snapshots_live_files_not_the_directorys(spark, tmp_path):
    path = str(tmp_path / "t")
    four_files(spark, path)
    # without deletion vectors, deleting every row of a file removes the file from the snapshot;
    # it stays on disk until a VACUUM
    spark.sql(f"DELETE FROM {sql_table(path)} WHERE k % 4 = 3")
    live = live_files(spark, path)
    assert parquet_files_on_disk(path) - live, "the delete left no removed file on disk"

    ds = Skipstone.for_path(spark, path, format="delta").build(BloomFilter("k"))

    (row,) = ds.describe().collect()
    assert row.files_indexed == len(live)
    assert row.table_version == current_version(spark, path)


def test_a_point_lookup_reads_only_the_file_that_may_hold_the_key(spark, tmp_path):
    path = str(tmp_path / "t")
    four_files(spark, path)
    Skipstone.for_path(spark, path, format="delta").build(BloomFilter("k"))

    rows, _ = run_both_ways(spark, f"SELECT k, s FROM {sql_table(path)} WHERE k = 41")

    assert rows == [(41, "s1")]
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped, stats.files_unindexed) == (4, 3, 0)


def test_files_appended_after_the_build_are_read_and_the_stats_say_why(spark, tmp_path):
    path = str(tmp_path / "t")
    four_files(spark, path)
    Skipstone.for_path(spark, path, format="delta").build(BloomFilter("k"))
    built = current_version(spark, path)
    write(spark, path, [(41, "new", 0.0)], SCHEMA)

    rows, _ = run_both_ways(spark, f"SELECT k, s FROM {sql_table(path)} WHERE k = 41")

    assert rows == [(41, "new"), (41, "s1")]
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped, stats.files_unindexed) == (5, 3, 1)
    assert any(f"not in the index built from version {built}" in why for why in stats.unanswered)


def test_refresh_indexes_files_added_since_the_indexed_version_and_forgets_removed_ones(spark, tmp_path):
    path = str(tmp_path / "t")
    four_files(spark, path)
    ds = Skipstone.for_path(spark, path, format="delta").build(ValueList("k", max_size=1000))
    spark.sql(f"DELETE FROM {sql_table(path)} WHERE k % 4 = 2")
    # the keys the deleted file held, written anew: only the new file may hold k = 10
    write(spark, path, [(k, "new", 0.0) for k in range(2, 400, 8)], SCHEMA)

    ds.refresh()

    (row,) = ds.describe().collect()
    assert (row.files_indexed, row.table_version) == (4, current_version(spark, path))
    assert len(live_files(spark, path)) == 4
    run_both_ways(spark, f"SELECT k FROM {sql_table(path)} WHERE k = 10")
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped, stats.files_unindexed) == (4, 3, 0)


def test_sql_builds_an_index_on_a_delta_path(spark, tmp_path):
    path = str(tmp_path / "t")
    four_files(spark, path)

    spark.sql(f"CREATE SKIPPING INDEX ON {sql_table(path)} (BLOOMFILTER(k))").collect()

    run_both_ways(spark, f"SELECT * FROM {sql_table(path)} WHERE k = 42")
    assert stats_of(spark).files_skipped == 3


def test_a_catalog_delta_table_is_indexed_and_skipped_by_name(spark, tmp_path):
    path = str(tmp_path / "source")
    four_files(spark, path)
    spark.sql(f"CREATE TABLE delta_orders USING delta AS SELECT * FROM {sql_table(path)}")
    try:
        ds = Skipstone.for_table(spark, "delta_orders").build(BloomFilter("k"))

        rows, _ = run_both_ways(spark, "SELECT count(*) FROM delta_orders WHERE k = 42")

        assert rows == [(1,)]
        assert ds.format == "delta" and ds.describe().collect()[0].table_version is not None
        stats = stats_of(spark)
        assert stats.files_total > 1 and stats.files_skipped == stats.files_total - 1
    finally:
        spark.sql("DROP TABLE delta_orders")


def test_a_partitioned_table_is_pruned_by_delta_then_skipped_within_the_partition(spark, tmp_path):
    path = str(tmp_path / "t")
    for i in range(4):
        write(spark, path, [(k, "a" if i < 2 else "b", 0.0) for k in range(400) if k % 4 == i],
              "k int, p string, v double", partition_by=["p"])
    Skipstone.for_path(spark, path, format="delta").build(BloomFilter("k"))

    rows, _ = run_both_ways(spark, f"SELECT k, p FROM {sql_table(path)} WHERE p = 'a' AND k = 41")

    assert rows == [(41, "a")]
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped) == (2, 1)


def test_an_index_on_a_partition_column_is_refused_naming_it(spark, tmp_path):
    path = str(tmp_path / "t")
    write(spark, path, [(1, "a", 0.0)], "k int, p string, v double", partition_by=["p"])

    with pytest.raises(Exception, match="p is a partition column of the Delta table"):
        Skipstone.for_path(spark, path, format="delta").build(ValueList("p"))


def test_a_delta_table_opened_as_parquet_is_refused(spark, tmp_path):
    path = str(tmp_path / "t")
    write(spark, path, [(1, "a", 0.0)], SCHEMA)

    with pytest.raises(SkipstoneError, match="is a Delta Lake table"):
        Skipstone.for_path(spark, path)


def test_delta_statements_named_like_skipstones_stay_deltas(spark, tmp_path):
    # OPTIMIZE, DESCRIBE DETAIL and DESCRIBE HISTORY are also Skipstone statements; on a Delta
    # table they stay Delta's whatever the order of spark.sql.extensions
    path = str(tmp_path / "t")
    four_files(spark, path)

    spark.sql(f"OPTIMIZE {sql_table(path)}").collect()

    (detail,) = spark.sql(f"DESCRIBE DETAIL {sql_table(path)}").collect()
    assert detail.numFiles == 1 and os.path.exists(os.path.join(path, "_delta_log"))


# `plus_one(k) > c` holds only where max(k) + 1 > c
PLUS_ONE_ON_MINMAX = UdfMapping("plus_one on minmax", (Rule("plus_one({x}) > {c}", "{x:minmax.max} + 1 > {c}"),))


@pytest.mark.parametrize("deletion_vectors", [False, True])
def test_a_python_udf_predicate_is_answered_by_its_mapping(spark, tmp_path, deletion_vectors):
    # Spark evaluates a Python UDF above the scan, in an operator of its own: the filter Delta's
    # scan sits under holds only the rest of the condition
    key = "spark.databricks.delta.properties.defaults.enableDeletionVectors"
    spark.conf.set(key, str(deletion_vectors).lower())
    try:
        path = str(tmp_path / "t")
        table = sql_table(path)
        four_files(spark, path)
        write(spark, path, [(1000 + k, "late", 0.0) for k in range(10)], SCHEMA)
        Skipstone.for_path(spark, path, format="delta").build(MinMax("k"), PLUS_ONE_ON_MINMAX)
        if deletion_vectors:
            # the scan now builds its `_metadata` in a projection under the filter
            spark.sql(f"DELETE FROM {table} WHERE k = 1007")
        # a lambda travels to the Python workers by value (this module is not on their path)
        spark.udf.register("plus_one", lambda x: None if x is None else x + 1, "int")
        late = 4 if deletion_vectors else 5

        assert run_both_ways(spark, f"SELECT count(*) FROM {table} WHERE plus_one(k) > 1005")[0] == [(late,)]
        assert stats_of(spark).files_skipped == 4
        # beside a conjunct Spark pushes under the UDF's evaluation, to the scan (one Delta's statistics cannot use)
        rows, _ = run_both_ways(spark, f"SELECT k FROM {table} WHERE plus_one(k) > 1005 AND v >= 0")
        assert len(rows) == late
        assert stats_of(spark).files_skipped == 4
        # in a disjunction, which stays above the evaluation whole (MinMax answers `k = 2000`, no file holds it)
        assert run_both_ways(spark, f"SELECT count(*) FROM {table} WHERE plus_one(k) > 1005 OR k = 2000")[0] == [(late,)]
        assert stats_of(spark).files_skipped == 4
    finally:
        spark.conf.unset(key)
