"""Where metadata lives and which relations get skipped: paths, partitions, catalog tables, joins."""
from __future__ import annotations

import os

import pytest

import skipstone
from conftest import run_both_ways
from datasets import write_clustered
from skipstone import MinMax, Skipstone


@pytest.fixture(scope="module")
def events(spark, tmp_path_factory) -> str:
    root = write_clustered(str(tmp_path_factory.mktemp("tables") / "events"))
    Skipstone.for_path(spark, root).build(MinMax("k"), MinMax("ts"))
    return root


@pytest.mark.files_store
def test_metadata_is_stored_beside_the_data_by_default(spark, events):
    assert os.path.isdir(os.path.join(events, "_skipstone"))
    (row,) = Skipstone.for_path(spark, events).describe().filter("index = 'MinMax(k)'").collect()
    assert row["files_indexed"] == 10 and row["metadata_dir"].endswith("events/_skipstone")


def test_describe_has_one_row_per_index(spark, events):
    rows = Skipstone.for_path(spark, events).describe().orderBy("index").collect()
    assert [(r["index"], r["kind"], r["columns"]) for r in rows] == [
        ("MinMax(k)", "minmax", ["k"]), ("MinMax(ts)", "minmax", ["ts"])]


def test_dataframe_reader_path_is_skipped_too(spark, events):
    count = spark.read.parquet(events).where("k >= 900").count()
    assert count == 100
    assert skipstone.last_query_stats(spark).files_skipped == 9


def test_configured_metadata_root_keeps_metadata_out_of_the_dataset(spark, tmp_path):
    root = write_clustered(str(tmp_path / "readonly"), files=4)
    spark.conf.set("spark.skipstone.metadataRoot", str(tmp_path / "meta"))
    try:
        Skipstone.for_path(spark, root).build(MinMax("k"))
        assert "_skipstone" not in os.listdir(root)
        assert len(os.listdir(tmp_path / "meta")) == 1
        _, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{root}` WHERE k = 5")
        assert stats.files_skipped == 3
    finally:
        spark.conf.unset("spark.skipstone.metadataRoot")
    # without the setting this session no longer finds that metadata: all files are read
    _, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{root}` WHERE k = 5")
    assert stats.files_skipped == 0


def test_drop_removes_metadata_and_skipping(spark, tmp_path):
    root = write_clustered(str(tmp_path / "dropped"), files=3)
    ds = Skipstone.for_path(spark, root)
    ds.build(MinMax("k"))
    assert ds.drop() is True
    assert not os.path.exists(os.path.join(root, "_skipstone"))
    assert ds.describe().count() == 0
    _, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{root}` WHERE k = 5")
    assert stats.per_dataset == []
    assert ds.drop() is False


def test_hive_partitioned_directories_skip_after_partition_pruning(spark, tmp_path):
    root = str(tmp_path / "partitioned")
    (spark.range(0, 4000).selectExpr("CAST(id AS INT) AS k", "CAST(id % 2 AS INT) AS half")
     .repartitionByRange(8, "k").write.partitionBy("half").parquet(root))
    Skipstone.for_path(spark, root).build(MinMax("k"))
    rows, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{root}` WHERE half = 1 AND k < 400")
    assert len(rows) == 200
    assert stats.files_total == 8          # partition pruning left only half=1's files
    assert stats.files_skipped == 7


def test_partitioned_catalog_table(spark, tmp_path):
    location = str(tmp_path / "weather_tbl")
    spark.sql(f"""CREATE TABLE weather_tbl (k INT, region STRING) USING parquet
                  PARTITIONED BY (region) LOCATION '{location}'""")
    (spark.range(0, 3000).selectExpr("CAST(id AS INT) AS k", "IF(id % 3 = 0, 'eu', 'us') AS region")
     .repartitionByRange(6, "k").write.insertInto("weather_tbl"))
    Skipstone.for_table(spark, "weather_tbl").build(MinMax("k"))
    rows, stats = run_both_ways(spark, "SELECT k FROM weather_tbl WHERE region = 'eu' AND k > 2600")
    assert len(rows) == len([k for k in range(2601, 3000) if k % 3 == 0])
    assert stats.files_total == 6 and stats.files_skipped == 5


def test_unpartitioned_catalog_table(spark, events):
    spark.sql(f"CREATE TABLE events_tbl USING parquet LOCATION '{events}'")
    _, stats = run_both_ways(spark, "SELECT * FROM events_tbl WHERE k < 100")
    assert stats.files_skipped == 9


def test_self_join_reports_both_sides_and_reuses_exchange(spark, events):
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try:
        sql = f"""SELECT a.k, b.k FROM parquet.`{events}` a JOIN parquet.`{events}` b
                  ON a.k = b.k WHERE a.k >= 900 AND b.k >= 900"""
        rows, stats = run_both_ways(spark, sql)
        assert len(rows) == 100
        # equal wrappers on both sides let Spark scan and shuffle once
        plan = spark.sql(sql)._jdf.queryExecution().executedPlan().toString()
        assert "SkippingFileIndex" in plan and "ReusedExchange" in plan
        assert [d.files_skipped for d in stats.per_dataset] == [9]
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")
        spark.conf.unset("spark.sql.adaptive.enabled")


def test_self_join_with_different_filters_reports_both_sides(spark, events):
    rows, stats = run_both_ways(spark, f"""SELECT a.k, b.k FROM parquet.`{events}` a
        JOIN parquet.`{events}` b ON a.k + 1 = b.k WHERE a.k < 100 AND b.k < 200""")
    assert len(rows) == 100
    assert sorted(d.files_skipped for d in stats.per_dataset) == [8, 9]


def test_union_of_two_indexed_datasets(spark, events, tmp_path):
    other = write_clustered(str(tmp_path / "other"), files=5)
    Skipstone.for_path(spark, other).build(MinMax("k"))
    rows, stats = run_both_ways(spark, f"""SELECT k FROM parquet.`{events}` WHERE k = 5
                                          UNION ALL SELECT k FROM parquet.`{other}` WHERE k = 450""")
    assert rows == [(450,), (5,)]
    assert sorted((d.files_total, d.files_skipped) for d in stats.per_dataset) == [(5, 4), (10, 9)]


def test_query_without_indexed_dataset_has_empty_stats(spark, tmp_path):
    root = write_clustered(str(tmp_path / "plain"), files=2)
    spark.read.parquet(root).where("k = 1").collect()
    assert skipstone.last_query_stats(spark).per_dataset == []
