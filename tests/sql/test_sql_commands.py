"""Skipstone's SQL statements run on real datasets and a real managed table, and answer what
the Python API answers (docs/sql.md)."""
from __future__ import annotations

import pytest
from pyspark.errors import IllegalArgumentException

import skipstone
from skipstone import MinMax, Skipstone, ValueList
from skipstone.layout import Amoeba
from tests.datasets import write_clustered


@pytest.fixture(scope="module")
def events(spark, tmp_path_factory) -> str:
    """Ten files, k clustered (file i holds 100i..100i+99), indexed by MinMax(k) and ValueList(cat)."""
    root = write_clustered(str(tmp_path_factory.mktemp("sql") / "events"))
    Skipstone.for_path(spark, root).build(MinMax("k"), ValueList("cat"))
    return root


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    rows = [(i, f"s{i % 13}") for i in range(400)]
    df = spark.createDataFrame(rows, "i INT, s STRING")
    return Skipstone.create(spark, str(tmp_path_factory.mktemp("sql") / "managed"), df, layout=Amoeba(block_rows=100))


def test_describe_skipping_index_answers_what_python_describe_answers(spark, events):
    rows = spark.sql(f"DESCRIBE SKIPPING INDEX ON parquet.`{events}`").collect()
    assert [r.asDict() for r in rows] == [r.asDict() for r in Skipstone.for_path(spark, events).describe().collect()]
    assert [(r["index"], r.files_indexed) for r in rows] == [("MinMax(k)", 10), ("ValueList(cat, max_size=1000)", 10)]


def test_a_catalog_table_name_reaches_the_index_of_its_location(spark, events):
    spark.sql(f"CREATE TABLE sql_events USING parquet LOCATION '{events}'")
    try:
        rows = spark.sql("DESCRIBE SKIPPING INDEX ON sql_events").collect()
        assert [r["index"] for r in rows] == ["MinMax(k)", "ValueList(cat, max_size=1000)"]
    finally:
        spark.sql("DROP TABLE sql_events")


def test_show_skipping_stats_reports_the_last_query_per_dataset_and_index(spark, events):
    assert spark.sql(f"SELECT count(*) FROM parquet.`{events}` WHERE k = 250").collect()[0][0] == 1
    rows = [r.asDict() for r in spark.sql("SHOW SKIPPING STATS").collect()]
    python = skipstone.last_query_stats(spark).per_dataset[0]
    total, by_index = rows[0], {r["index"]: r["files_skipped"] for r in rows[1:]}
    assert (total["dataset"], total["index"]) == (python.path, None)
    assert (total["files_total"], total["files_skipped"], total["files_read"]) == (10, 9, 1)
    assert total["bytes_skipped"] == python.bytes_skipped and total["bytes_read"] == python.bytes_total - python.bytes_skipped
    assert by_index == {"MinMax(k)": 9, "ValueList(cat, max_size=1000)": 0}


def test_showing_the_stats_does_not_replace_them(spark, events):
    spark.sql(f"SELECT * FROM parquet.`{events}` WHERE k >= 900").collect()
    first = spark.sql("SHOW SKIPPING STATS").collect()
    spark.sql("SHOW SKIPPING STATS").show()
    assert spark.sql("SHOW SKIPPING STATS").collect() == first
    assert first[0].files_skipped == 9 and skipstone.last_query_stats(spark).files_skipped == 9


def test_a_query_reading_no_file_leaves_the_stats_of_the_last_one_that_did(spark, events):
    spark.sql(f"SELECT * FROM parquet.`{events}` WHERE k >= 900").collect()
    spark.range(3).collect()
    spark.sql("SELECT 1").collect()
    assert spark.sql("SHOW SKIPPING STATS").collect()[0].files_skipped == 9


def test_a_query_over_no_indexed_dataset_shows_no_stats(spark, tmp_path):
    plain = write_clustered(str(tmp_path / "plain"), files=2)
    spark.sql(f"SELECT * FROM parquet.`{plain}` WHERE k = 1").collect()
    assert spark.sql("SHOW SKIPPING STATS").collect() == []


def test_explain_tells_per_scan_what_skipping_drops_before_the_query_runs(spark, events):
    plan = spark.sql(f"EXPLAIN SELECT * FROM parquet.`{events}` WHERE k < 150 OR cat = 'none'").collect()[0].plan
    assert "== Physical Plan ==" in plan
    section = plan.split("== Skipstone ==")[1]
    assert f"Scan parquet {Skipstone.for_path(spark, events).root}: skipped 8 of 10 files" in section


def test_explain_of_a_query_without_indexes_is_spark_s_alone(spark):
    assert "== Skipstone ==" not in spark.sql("EXPLAIN EXTENDED SELECT * FROM range(3)").collect()[0].plan


def test_drop_skipping_index_deletes_the_metadata_and_queries_read_every_file(spark, tmp_path):
    root = write_clustered(str(tmp_path / "dropped"), files=3)
    Skipstone.for_path(spark, root).build(MinMax("k"))
    assert spark.sql(f"DROP SKIPPING INDEX ON parquet.`{root}`").collect()[0].dropped is True
    assert spark.sql(f"DESCRIBE SKIPPING INDEX ON parquet.`{root}`").collect() == []
    assert spark.sql(f"SELECT count(*) FROM parquet.`{root}` WHERE k = 5").collect()[0][0] == 1
    assert spark.sql("SHOW SKIPPING STATS").collect() == []
    assert spark.sql(f"DROP SKIPPING INDEX ON parquet.`{root}`").collect()[0].dropped is False


def test_describe_history_lists_the_commits_of_a_managed_table(spark, table):
    rows = spark.sql(f"DESCRIBE HISTORY parquet.`{table.root}`").collect()
    assert [r.asDict() for r in rows] == [r.asDict() for r in table.history().collect()]
    assert rows[0].version == table.history().collect()[0].version


def test_set_tblproperties_commits_the_settings_of_a_managed_table(spark, table):
    before = table.version
    spark.sql(f"ALTER TABLE parquet.`{table.root}` SET TBLPROPERTIES ('workloadLog.enabled' = 'false', 'team' = 'x')")
    assert table.version == before + 1
    assert table.properties()["workloadLog.enabled"] == "false" and table.properties()["team"] == "x"
    last = spark.sql(f"DESCRIBE HISTORY parquet.`{table.root}`").collect()[-1]
    assert (last.version, last.operation) == (before + 1, "SET PROPERTIES")
    spark.sql(f"ALTER TABLE parquet.`{table.root}` SET TBLPROPERTIES (workloadLog.enabled = true)")
    assert table.properties()["workloadLog.enabled"] == "true"


def test_set_tblproperties_through_a_catalog_table_over_a_managed_table(spark, table):
    spark.sql(f"CREATE TABLE sql_managed USING parquet LOCATION '{table.root}'")
    try:
        spark.sql("ALTER TABLE sql_managed SET TBLPROPERTIES ('owner' = 'search')")
        assert table.properties()["owner"] == "search"
    finally:
        spark.sql("DROP TABLE sql_managed")


def test_set_tblproperties_refuses_the_keys_skipstone_writes_itself(spark, table):
    before = table.version
    with pytest.raises(IllegalArgumentException, match="table parquet.`.*`: 'schema' is written by Skipstone itself"):
        spark.sql(f"ALTER TABLE parquet.`{table.root}` SET TBLPROPERTIES ('schema' = '{{}}')")
    assert table.version == before


@pytest.mark.parametrize("statement", [
    "DESCRIBE HISTORY {}", "ALTER TABLE {} SET TBLPROPERTIES ('a' = 'b')", "OPTIMIZE {}", "VACUUM {} DRY RUN",
])
def test_table_statements_on_a_plain_dataset_say_it_is_no_skipstone_table(spark, events, statement):
    with pytest.raises(IllegalArgumentException, match=r"parquet\.`.*` is not a Skipstone table \(no log under"):
        spark.sql(statement.format(f"parquet.`{events}`"))


def test_drop_skipping_index_refuses_a_managed_table(spark, table):
    with pytest.raises(IllegalArgumentException, match="is a managed table"):
        spark.sql(f"DROP SKIPPING INDEX ON parquet.`{table.root}`")


def test_vacuum_refuses_a_negative_retention(spark, table):
    with pytest.raises(IllegalArgumentException, match="RETAIN -1.0 HOURS must not be negative"):
        spark.sql(f"VACUUM parquet.`{table.root}` RETAIN -1 HOURS")


def test_scala_reaches_the_same_stats_as_show_skipping_stats(spark, events):
    spark.sql(f"SELECT * FROM parquet.`{events}` WHERE k = 10").collect()
    stats_api = spark._jvm.io.skipstone.sql.SkippingStats
    last = stats_api.last(spark._jsparkSession).get()
    assert (last.filesTotal(), last.filesSkipped()) == (10, 9)
    from pyspark.sql import DataFrame

    frame = DataFrame(stats_api.lastAsDataFrame(spark._jsparkSession), spark)
    assert frame.collect() == spark.sql("SHOW SKIPPING STATS").collect()


def test_vacuum_dry_run_keeps_every_row_and_a_short_retention_is_refused(spark, table):
    rows_before = spark.read.parquet(table.root).count()
    listed = spark.sql(f"VACUUM parquet.`{table.root}` DRY RUN")
    assert listed.columns == ["path", "kind", "size"]
    assert [r.asDict() for r in listed.collect()] == [r.asDict() for r in table.vacuum(dry_run=True).collect()]
    assert spark.read.parquet(table.root).count() == rows_before
    with pytest.raises(Exception, match="retention"):
        spark.sql(f"VACUUM parquet.`{table.root}` RETAIN 0 HOURS")
    assert spark.read.parquet(table.root).count() == rows_before
