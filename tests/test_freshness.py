"""Stale metadata never causes a wrong answer: changed and new files are read; refresh catches up."""
from __future__ import annotations

import json
import os

import pyarrow as pa
import pytest

from conftest import run_both_ways
from datasets import clustered_table, write_clustered, write_file
import skipstone
from skipstone import MinMax, Skipstone


@pytest.fixture()
def table(spark, tmp_path) -> str:
    root = write_clustered(str(tmp_path / "events"))
    Skipstone.for_path(spark, root).build(MinMax("k"))
    return root


def shifted(file: int, by: int) -> pa.Table:
    t = clustered_table(file)
    return t.set_column(0, "k", pa.array([v + by for v in t.column("k").to_pylist()], pa.int32()))


def query(table: str, predicate: str) -> str:
    return f"SELECT k FROM parquet.`{table}` WHERE {predicate}"


def test_file_modified_after_indexing_is_read(spark, table):
    # file 3 used to hold 300..399; now it also holds 5300..5399 (more rows: a new size)
    write_file(table, 3, pa.concat_tables([clustered_table(3), shifted(3, 5000)]))
    rows, stats = run_both_ways(spark, query(table, "k = 5350"))
    assert rows == [(5350,)]
    assert stats.per_dataset[0].files_unindexed == 1
    assert stats.files_skipped == 9


def test_file_added_after_indexing_is_read(spark, table):
    write_file(table, 10, shifted(0, 7000))
    rows, stats = run_both_ways(spark, query(table, "k = 7005"))
    assert rows == [(7005,)]
    assert stats.files_total == 11
    assert stats.files_skipped == 10


def test_file_deleted_after_indexing_causes_no_error(spark, table):
    os.remove(os.path.join(table, "part-00002.parquet"))
    rows, stats = run_both_ways(spark, query(table, "k BETWEEN 250 AND 350"))
    assert rows == [(k,) for k in range(300, 351)]
    assert stats.files_total == 9


def test_refresh_indexes_new_and_changed_files_and_forgets_deleted(spark, table):
    write_file(table, 3, shifted(3, 5000))
    write_file(table, 10, shifted(0, 7000))
    os.remove(os.path.join(table, "part-00004.parquet"))
    ds = Skipstone.for_path(spark, table)
    ds.refresh()
    assert ds.describe().collect()[0]["files_indexed"] == 10
    rows, stats = run_both_ways(spark, query(table, "k = 5350 OR k = 7005"))
    assert rows == [(5350,), (7005,)]
    assert stats.per_dataset[0].files_unindexed == 0
    assert stats.files_skipped == 8


def test_refresh_publishes_a_new_version(spark, table):
    ds = Skipstone.for_path(spark, table)
    before = ds.describe().collect()[0]["version"]
    ds.refresh()
    assert ds.describe().collect()[0]["version"] == before + 1


@pytest.mark.files_store
def test_unreadable_metadata_means_no_skipping_not_a_failed_query(spark, table):
    meta = os.path.join(table, "_skipstone")
    (version,) = [v for v in os.listdir(meta) if v.startswith("v")]
    with open(os.path.join(meta, version, "index.json"), "w") as f:
        f.write("{ this is not json")
    rows, stats = run_both_ways(spark, query(table, "k = 250"))
    assert rows == [(250,)]
    assert stats.per_dataset == []


@pytest.mark.files_store
def test_newer_metadata_format_is_ignored_with_all_files_read(spark, table):
    meta = os.path.join(table, "_skipstone")
    (version,) = [v for v in os.listdir(meta) if v.startswith("v")]
    path = os.path.join(meta, version, "index.json")
    with open(path) as f:
        definition = json.load(f)
    definition["formatVersion"] = 99
    with open(path, "w") as f:
        json.dump(definition, f)
    rows, stats = run_both_ways(spark, query(table, "k = 250"))
    assert rows == [(250,)] and stats.files_skipped == 0


def test_rewrite_that_restores_size_and_mtime_is_read(spark, table):
    # `cp -p` / `rsync -t`: same size, same modification time, other bytes (k shifted by 7000,
    # which keeps every value's width and so the file's size).
    path = os.path.join(table, "part-00003.parquet")
    before = os.stat(path)
    write_file(table, 3, shifted(3, 7000))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    rows, stats = run_both_ways(spark, query(table, "k = 7350"))
    assert rows == [(7350,)]
    assert stats.per_dataset[0].files_unindexed == 1


def test_dataframe_whose_listing_predates_an_in_place_rewrite_is_answered_right(spark, table):
    df = spark.read.parquet(table)  # lists the files now, and keeps that listing
    df.where("k = 1").collect()
    write_file(table, 3, shifted(3, 7000))
    spark.conf.set("spark.skipstone.enabled", "false")
    expected = sorted(df.where("k = 7350").collect())
    spark.conf.set("spark.skipstone.enabled", "true")
    assert sorted(df.where("k = 7350").collect()) == expected


def test_files_without_rows_are_skipped_whatever_the_query(spark, tmp_path):
    root = write_clustered(str(tmp_path / "with-empty"), files=3)
    write_file(root, 3, clustered_table(0).slice(0, 0))
    Skipstone.for_path(spark, root).build(MinMax("k"), use_footers=False)
    rows, stats = run_both_ways(spark, query(root, "s LIKE '%-001'"))
    assert len(rows) == 3
    assert stats.files_skipped == 1


@pytest.fixture()
def trust_listing(spark):
    spark.conf.set("spark.skipstone.verifySkippedFiles", "listing")
    yield
    spark.conf.unset("spark.skipstone.verifySkippedFiles")


def test_trusting_the_listing_still_reads_a_file_whose_size_changed(spark, table, trust_listing):
    # A fresh listing gives the new size, which no longer equals the indexed one.
    write_file(table, 3, pa.concat_tables([clustered_table(3), shifted(3, 5000)]))
    rows, stats = run_both_ways(spark, query(table, "k = 5350"))
    assert rows == [(5350,)]
    assert stats.per_dataset[0].files_unindexed == 1
    assert stats.files_skipped == 9


def test_trusting_the_listing_checks_no_skipped_file_on_disk(spark, table, trust_listing):
    """A file deleted after the DataFrame listed it shows the difference: with the listing
    trusted it is skipped unchecked; with the default check it cannot be confirmed, so it is read."""
    df = spark.read.parquet(table)  # keeps this listing
    os.remove(os.path.join(table, "part-00004.parquet"))
    spark.conf.set("spark.sql.files.ignoreMissingFiles", "true")
    try:
        assert [r.k for r in df.where("k = 150").collect()] == [150]
        stats = skipstone.last_query_stats(spark)
        assert (stats.files_skipped, stats.per_dataset[0].files_unindexed) == (9, 0)
        spark.conf.set("spark.skipstone.verifySkippedFiles", "auto")
        assert [r.k for r in df.where("k = 150").collect()] == [150]
        stats = skipstone.last_query_stats(spark)
        assert (stats.files_skipped, stats.per_dataset[0].files_unindexed) == (8, 1)
    finally:
        spark.conf.unset("spark.sql.files.ignoreMissingFiles")
