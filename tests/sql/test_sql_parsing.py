"""Skipstone's SQL parser: which statements it takes, what they mean, how it reports mistakes,
and that everything else is Spark's (docs/sql.md)."""
from __future__ import annotations

import json

import pytest
from pyspark.errors import IllegalArgumentException, ParseException


def parse(spark, sql: str):
    """The logical plan the session's parser (Skipstone's, over Spark's) makes of ``sql``; nothing runs."""
    return spark._jsparkSession.sessionState().sqlParser().parsePlan(sql)


def kind_of(plan) -> str:
    return plan.getClass().getSimpleName()


def requests(spark, sql: str) -> list[dict]:
    return json.loads(parse(spark, sql).requestsJson())


def test_keywords_are_case_insensitive_and_comments_count_as_white_space(spark):
    sql = "/* build */ create  Skipping\n\tINDEX -- on the events\n ON parquet.`/data/events` (MinMax(k));;"
    assert kind_of(parse(spark, sql)) == "CreateSkippingIndexCommand"
    assert requests(spark, sql) == [{"kind": "minmax", "columns": ["k"], "params": {}}]


@pytest.mark.parametrize("sql, command", [
    ("REFRESH SKIPPING INDEX ON parquet.`/data/events`", "RefreshSkippingIndexCommand"),
    ("DESCRIBE SKIPPING INDEX ON db.events", "DescribeSkippingIndexCommand"),
    ("desc skipping index on `my events`", "DescribeSkippingIndexCommand"),
    ("DROP SKIPPING INDEX ON events", "DropSkippingIndexCommand"),
    ("DESCRIBE SKIPPING ADVICE ON parquet.`/t`", "DescribeSkippingAdviceCommand"),
    ("desc skipping advice on db.events", "DescribeSkippingAdviceCommand"),
    ("OPTIMIZE parquet.`/t` LAYOUT AUTO", "OptimizeCommand"),
    ("SHOW SKIPPING STATS", "ShowSkippingStatsCommand$"),
    ("OPTIMIZE parquet.`/t` LAYOUT ZORDER BY (a, b)", "OptimizeCommand"),
    ("VACUUM parquet.`/t` RETAIN 0.5 HOURS DRY RUN", "VacuumCommand"),
    ("DESCRIBE HISTORY parquet.`/t`", "DescribeHistoryCommand"),
    ("EXPLAIN SELECT 1", "ExplainSkippingCommand"),
])
def test_each_statement_becomes_its_command(spark, sql, command):
    assert kind_of(parse(spark, sql)) == command


def test_statement_parts_are_kept_as_written(spark):
    vacuum = parse(spark, "VACUUM parquet.`/t` RETAIN 0.5 HOURS DRY RUN")
    assert (vacuum.retainHours().get(), vacuum.dryRun()) == (0.5, True)
    assert vacuum.target().path() == "/t" and vacuum.target().format() == "parquet"
    optimize = parse(spark, "OPTIMIZE db.t LAYOUT hilbert BY (a, `b.c`)")
    assert optimize.layout().get().name() == "hilbert"
    assert optimize.layout().get().columns().mkString("|") == "a|`b.c`"
    assert optimize.target().parts().mkString("|") == "db|t"


def test_create_translates_each_index_and_its_options_into_a_build_request(spark):
    sql = """CREATE SKIPPING INDEX ON parquet.`/data/events` (
               MINMAX(ts),
               VALUELIST(cat) OPTIONS (max_size = 50),
               BLOOMFILTER(`user id`) OPTIONS (FPP 0.01, 'expected_items' 2000),
               PREFIX(s.url) OPTIONS (length 8),
               FORMATTED(url) OPTIONS (expression 'lower({col})', name "lower"),
               METRICDIST(v) OPTIONS (metric.udf 'dist', metric.sql 'abs({a} - {b})', origin '0'),
               length_range(name) OPTIONS (flag true))"""
    assert requests(spark, sql) == [
        {"kind": "minmax", "columns": ["ts"], "params": {}},
        {"kind": "valuelist", "columns": ["cat"], "params": {"max_size": "50"}},
        {"kind": "bloomfilter", "columns": ["user id"], "params": {"fpp": "0.01", "expected_items": "2000"}},
        {"kind": "prefix", "columns": ["s.url"], "params": {"length": "8"}},
        {"kind": "formatted", "columns": ["url"], "params": {"expression": "lower({col})", "name": "lower"}},
        {"kind": "metricdist", "columns": ["v"],
         "params": {"metric.udf": "dist", "metric.sql": "abs({a} - {b})", "origin": "0"}},
        {"kind": "length_range", "columns": ["name"], "params": {"flag": "true"}},
    ]


def test_a_backticked_part_holding_a_dot_stays_one_column_name(spark):
    sql = "CREATE SKIPPING INDEX ON t (MINMAX(`a.b`), MINMAX(s.`c.d`))"
    assert [r["columns"] for r in requests(spark, sql)] == [["`a.b`"], ["s.`c.d`"]]


@pytest.mark.parametrize("sql, message", [
    ("OPTIMIZE", "OPTIMIZE: a table name or format.`path` expected (line 1, column 9, at end of statement)"),
    ("DESCRIBE SKIPPING INDEX parquet.`/p`", "DESCRIBE SKIPPING INDEX: ON expected"),
    ("VACUUM t RETAIN many HOURS", "VACUUM: a number expected (line 1, column 17, at 'many')"),
    ("CREATE SKIPPING INDEX ON t (MINMAX(c)", "CREATE SKIPPING INDEX: ')' expected"),
    ("CREATE SKIPPING INDEX ON t ()", "CREATE SKIPPING INDEX: identifier expected (line 1, column 29"),
    ("SHOW SKIPPING STATISTICS", "SHOW SKIPPING STATS: STATS expected"),
    ("VACUUM t\nRETAIN 3 DAYS", "VACUUM: HOURS expected (line 2, column 10, at 'DAYS')"),
])
def test_a_malformed_statement_names_the_statement_and_the_position(spark, sql, message):
    with pytest.raises(IllegalArgumentException) as err:
        parse(spark, sql)
    assert message in str(err.value)


@pytest.mark.parametrize("sql, message", [
    ("CREATE SKIPPING INDEX ON t (BLOOMFILTER(c) OPTIONS (fp 0.1))",
     "BLOOMFILTER(c) has no option 'fp' (it takes fpp, expected_items)"),
    ("CREATE SKIPPING INDEX ON t (MINMAX(a, b))", "MINMAX(a, b) takes 1 column(s), not 2"),
    ("CREATE SKIPPING INDEX ON t (PREFIX(url))", "PREFIX(url) needs OPTIONS (length ...)"),
    ("CREATE SKIPPING INDEX ON t (GEOBOX(lat, lon))", "GEOBOX(lat, lon) cannot be built from SQL"),
    ("CREATE SKIPPING INDEX ON t (MINMAX(a), minmax(a))", "minmax(a) is requested twice"),
    ("CREATE SKIPPING INDEX ON t (GAPLIST(a) OPTIONS (gaps 3, GAPS 4))", "GAPLIST(a) sets option 'gaps' twice"),
    ("OPTIMIZE t LAYOUT SPIRAL", "OPTIMIZE: unknown LAYOUT SPIRAL (one of AMOEBA, KD, RANGE, ZORDER, HILBERT, PAW, QDTREE, AUTO)"),
    ("OPTIMIZE t LAYOUT ZORDER", "OPTIMIZE: LAYOUT ZORDER needs BY (columns)"),
])
def test_a_wrong_index_or_option_is_named_before_anything_runs(spark, sql, message):
    with pytest.raises(IllegalArgumentException) as err:
        spark.sql(sql)
    assert message in str(err.value)


def test_ordinary_sql_is_spark_s_own_with_its_comments_and_parameters(spark):
    assert spark.sql("/* c */ SELECT 1 AS one -- trailing").collect()[0].one == 1
    assert spark.sql("SELECT :x + 1 AS y", args={"x": 41}).collect()[0].y == 42
    assert kind_of(parse(spark, "SELECT * FROM skipping")) == "Project"


def test_spark_s_parse_errors_stay_spark_s(spark):
    with pytest.raises(ParseException):
        spark.sql("SELEC 1")


def test_describe_of_a_table_named_history_is_spark_s(spark, tmp_path):
    spark.sql(f"CREATE TABLE history (k INT) USING parquet LOCATION '{tmp_path}/history'")
    try:
        assert [r.col_name for r in spark.sql("DESCRIBE history").collect()] == ["k"]
    finally:
        spark.sql("DROP TABLE history")


def test_alter_table_on_a_table_that_is_not_skipstone_s_keeps_spark_s_meaning(spark, tmp_path):
    spark.sql(f"CREATE TABLE plain (k INT) USING parquet LOCATION '{tmp_path}/plain'")
    try:
        spark.sql("ALTER TABLE plain SET TBLPROPERTIES ('owner.team' = 'search')")
        props = {r.key: r.value for r in spark.sql("SHOW TBLPROPERTIES plain").collect()}
        assert props["owner.team"] == "search"
        spark.sql("ALTER TABLE plain ADD COLUMNS (s STRING)")  # a form Skipstone does not have
        assert spark.table("plain").columns == ["k", "s"]
    finally:
        spark.sql("DROP TABLE plain")


def test_alter_table_of_a_missing_table_is_reported_by_spark(spark):
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException, match="no_such_table"):
        spark.sql("ALTER TABLE no_such_table SET TBLPROPERTIES ('a' = 'b')")


@pytest.mark.parametrize("clause, store", [
    ("", None), ("STORED IN FILES", "files"), ("STORED IN CATALOG", "catalog"),
    ("STORED IN CATALOG DATABASE analytics", "catalog:analytics"),
    ("stored in catalog table analytics.events_index", "catalog:analytics.events_index"),
])
def test_stored_in_names_the_metadata_store_as_python_s_metadata_store_does(spark, clause, store):
    plan = parse(spark, f"CREATE SKIPPING INDEX ON t (MINMAX(a)) WITH FOOTER KEY 'f' {clause}")
    assert (plan.store().get() if plan.store().isDefined() else None) == store


def test_stored_in_an_unknown_place_names_the_choices(spark):
    with pytest.raises(IllegalArgumentException) as err:
        parse(spark, "CREATE SKIPPING INDEX ON t (MINMAX(a)) STORED IN HIVE")
    assert "FILES, CATALOG, CATALOG TABLE <database>.<table> or CATALOG DATABASE <database> expected" in str(err.value)


@pytest.mark.parametrize("sql, where, store", [
    ("CREATE SKIPPING INDEX ON t (MINMAX(a)) WHERE a > 1 STORED IN CATALOG", "a > 1", "catalog"),
    ("CREATE SKIPPING INDEX ON t (MINMAX(a)) WHERE stored IN (1, 2) STORED IN FILES", "stored IN (1, 2)", "files"),
    ("CREATE SKIPPING INDEX ON t (MINMAX(a)) WHERE a > 1 WITH (auto_refresh = true) STORED IN CATALOG DATABASE db",
     "a > 1", "catalog:db"),
    ("CREATE SKIPPING INDEX ON t (MINMAX(a)) WHERE s = 'stored in' STORED  IN FILES", "s = 'stored in'", "files"),
])
def test_a_partial_index_s_where_ends_where_stored_in_begins(spark, sql, where, store):
    plan = parse(spark, sql)
    assert plan.where().get() == where
    assert plan.store().get() == store
