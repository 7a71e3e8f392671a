"""Metadata is valid only under the read and session semantics it was built with (issue 21).

Each test writes files the odd way real lakes hold them, builds an index under one read
context, queries under another, and checks that skipping on and off give the same rows; the
positive tests check that a read equal in effect still skips.
"""
from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

import udfs  # noqa: F401  (Python workers run this interpreter)
from conftest import run_df_both_ways
from skipstone import Formatted, MinMax, Role, Rule, RuleIndex, Skipstone, ValueList


def write_text(root: str, name: str, text: str) -> None:
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, name), "w") as f:
        f.write(text)


both_ways = run_df_both_ways


def unanswered(stats: Any) -> str:
    return " | ".join(u for d in stats.per_dataset for u in d.unanswered)


@pytest.fixture()
def settings(spark):
    """Session settings a test changes, restored afterwards."""
    changed: dict[str, str | None] = {}

    def set_(key: str, value: str) -> None:
        if key not in changed:
            changed[key] = spark.conf.get(key, None)
        spark.conf.set(key, value)
    yield set_
    for key, value in changed.items():
        if value is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, value)


# -- 1. which file column a read column is ------------------------------------------------

def test_orc_written_by_hive_maps_columns_by_position(spark, tmp_path):
    root = str(tmp_path / "hive_orc")
    for i in range(3):
        spark.createDataFrame([(i, 100 + i)], "_col0 int, _col1 int").write.mode("append").orc(root)
    Skipstone.for_dataframe(spark.read.schema("a int, b int").orc(root)).build(MinMax("a"), MinMax("b"))
    rows, stats = both_ways(spark, lambda: spark.read.schema("b int, a int").orc(root).where("a > 100"))
    assert rows == [(1, 101), (2, 102)]
    assert "position" in unanswered(stats)


def test_parquet_read_by_field_id_is_not_answered_by_name(spark, tmp_path, settings):
    from pyspark.sql.types import IntegerType, StructField, StructType

    def field(name: str, fid: int) -> StructField:
        return StructField(name, IntegerType(), True, {"parquet.field.id": fid})

    root = str(tmp_path / "field_ids")
    schema = StructType([field("a", 1), field("b", 2)])
    for i in range(3):
        spark.createDataFrame([(i, 100 + i)], schema).write.mode("append").parquet(root)
    settings("spark.sql.parquet.fieldId.read.enabled", "true")
    Skipstone.for_dataframe(spark.read.schema(schema).parquet(root)).build(MinMax("a"))
    swapped = StructType([field("a", 2), field("b", 1)])
    both_ways(spark, lambda: spark.read.schema(swapped).parquet(root).where("a = 101"))
    rows, stats = both_ways(spark, lambda: spark.read.schema(swapped).parquet(root).where("a = 1"))
    assert "field id" in unanswered(stats)


def test_json_key_indexed_under_one_spelling_is_not_answered_for_another(spark, tmp_path):
    root = str(tmp_path / "json_case")
    for i in range(3):
        write_text(root, f"part-{i}.json", f'{{"X": {i}}}\n')
    Skipstone.for_dataframe(spark.read.schema("X bigint").json(root)).build(MinMax("X"))
    # JSON matches keys exactly: read as `x`, every value is NULL.
    rows, stats = both_ways(spark, lambda: spark.read.schema("x bigint").json(root).where("x IS NULL"))
    assert rows == [(None,), (None,), (None,)]
    assert stats.files_skipped == 0


def test_csv_view_with_the_same_columns_still_skips(spark, tmp_path):
    root = str(tmp_path / "csv_view")
    for i in range(3):
        write_text(root, f"p{i}.csv", "a,b\n" + "".join(f"{i * 10 + j},{j}\n" for j in range(3)))
    Skipstone.for_dataframe(spark.read.option("header", "true").option("inferSchema", "true").csv(root)).build(MinMax("a"))
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW same_csv (a INT, b INT) USING csv OPTIONS (header 'true', path '{root}')")
    rows, stats = both_ways(spark, lambda: spark.sql("SELECT * FROM same_csv WHERE a = 11"))
    assert rows == [(11, 1)]
    assert stats.files_skipped == 2


# -- 2 and 8. partition values are the reader's --------------------------------------------

def test_data_column_named_like_a_partition_is_not_answered_from_metadata(spark, tmp_path):
    root = str(tmp_path / "overlap")
    for p in (1, 2):
        spark.createDataFrame([(5 + p, p)], "p int, v int").write.mode("append").parquet(f"{root}/p={p}")
    Skipstone.for_path(spark, root).build(MinMax("p"), MinMax("v"))
    rows, stats = both_ways(spark, lambda: spark.read.option("recursiveFileLookup", "true").parquet(root).where("p = 6"))
    assert rows == [(6, 1)]
    assert "partition column" in unanswered(stats)


def test_timestamp_partition_values_depend_on_the_session_zone(spark, tmp_path, settings):
    root = str(tmp_path / "ts_parts")
    for h in (0, 12):
        spark.createDataFrame([(h,)], "v int").write.mode("append").parquet(f"{root}/t=2024-01-01 {h:02d}%3A00%3A00")
    Skipstone.for_path(spark, root).build(MinMax("t"), MinMax("v"))
    settings("spark.sql.session.timeZone", "America/Los_Angeles")
    both_ways(spark, lambda: spark.read.parquet(root).where("t = TIMESTAMP'2024-01-01 12:00:00'"))


def test_catalog_partition_with_another_location_is_not_answered_from_its_files(spark, tmp_path):
    root = str(tmp_path / "aliased")
    for p in (1, 2):
        spark.createDataFrame([(p * 10,)], "v int").write.parquet(f"{root}/p={p}")
    spark.sql(f"CREATE TABLE aliased (v INT, p INT) USING parquet PARTITIONED BY (p) LOCATION '{root}'")
    try:
        spark.sql("MSCK REPAIR TABLE aliased")
        Skipstone.for_table(spark, "aliased").build(MinMax("v"), MinMax("p"))
        spark.sql(f"ALTER TABLE aliased ADD PARTITION (p=3) LOCATION '{root}/p=1'")
        rows, _ = both_ways(spark, lambda: spark.sql("SELECT v, p FROM aliased WHERE p = 3 OR v > 100"))
        assert rows == [(10, 3)]
        rows, stats = both_ways(spark, lambda: spark.sql("SELECT v, p FROM aliased WHERE v = 20"))
        assert rows == [(20, 2)]
        assert stats.files_skipped >= 1
    finally:
        spark.sql("DROP TABLE aliased")


# -- 3. session settings that change what values are ---------------------------------------

def test_legacy_time_parser_policy_changes_parsed_dates(spark, tmp_path, settings):
    root = str(tmp_path / "legacy_dates")
    write_text(root, "a.csv", "2024-01-01x,1\n")
    write_text(root, "b.csv", "2024-02-01,2\n")
    read = lambda: spark.read.schema("d date, k int").option("dateFormat", "yyyy-MM-dd").csv(root)  # noqa: E731
    settings("spark.sql.legacy.timeParserPolicy", "CORRECTED")
    Skipstone.for_dataframe(read()).build(MinMax("d"))
    settings("spark.sql.legacy.timeParserPolicy", "LEGACY")
    rows, stats = both_ways(spark, lambda: read().where("d = DATE'2024-01-01'"))
    assert rows == [(dt.date(2024, 1, 1), 1)]
    assert "timeParserPolicy" in unanswered(stats)


def test_refresh_in_another_zone_indexes_every_file_in_that_zone(spark, tmp_path, settings):
    root = str(tmp_path / "zones")
    read = lambda: spark.read.schema("ts timestamp, k int").csv(root)  # noqa: E731
    write_text(root, "a.csv", "2024-01-01 10:00:00,1\n")
    Skipstone.for_dataframe(read()).build(MinMax("ts"))
    write_text(root, "b.csv", "2024-01-02 10:00:00,2\n")
    settings("spark.sql.session.timeZone", "America/Los_Angeles")
    Skipstone.for_path(spark, root, format="csv").refresh()
    rows, stats = both_ways(spark, lambda: read().where("ts = TIMESTAMP'2024-01-02 10:00:00'"))
    assert rows == [(dt.datetime(2024, 1, 2, 10, 0), 2)] or len(rows) == 1
    assert stats.files_skipped == 1
    settings("spark.sql.session.timeZone", "UTC")
    both_ways(spark, lambda: read().where("ts = TIMESTAMP'2024-01-02 18:00:00'"))


def test_parquet_timestamps_keep_skipping_in_another_zone(spark, tmp_path, settings):
    root = str(tmp_path / "pq_ts")
    settings("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    for d in (1, 2, 3):
        spark.sql(f"SELECT TIMESTAMP'2024-01-0{d} 10:00:00' AS ts").write.mode("append").parquet(root)
    Skipstone.for_path(spark, root).build(MinMax("ts"))
    settings("spark.sql.session.timeZone", "Asia/Tokyo")
    rows, stats = both_ways(spark, lambda: spark.read.parquet(root).where("ts = TIMESTAMP'2024-01-02 19:00:00'"))
    assert len(rows) == 1
    assert stats.files_skipped == 2


def test_an_unknown_value_setting_voids_the_metadata_and_says_which(spark, tmp_path, settings):
    root = str(tmp_path / "chars")
    for i in range(3):
        spark.createDataFrame([(i,)], "k int").write.mode("append").parquet(root)
    Skipstone.for_path(spark, root).build(MinMax("k"))
    settings("spark.sql.caseSensitive", "true")
    rows, stats = both_ways(spark, lambda: spark.read.parquet(root).where("k = 1"))
    assert rows == [(1,)]
    assert stats.per_dataset[0].skipped_by_index == {}
    assert "spark.sql.caseSensitive" in unanswered(stats)


def test_value_neutral_settings_keep_skipping(spark, tmp_path, settings):
    root = str(tmp_path / "neutral")
    for i in range(3):
        spark.createDataFrame([(i,)], "k int").write.mode("append").parquet(root)
    Skipstone.for_path(spark, root).build(MinMax("k"))
    settings("spark.sql.shuffle.partitions", "7")
    settings("spark.sql.adaptive.enabled", "false")
    settings("spark.sql.parquet.compression.codec", "gzip")
    # catalogs only name tables: Iceberg's rewrite_data_files registers two in the session, which
    # once stopped every skipping index for the rest of the session
    settings("spark.sql.catalog.default_iceberg", "org.example.NeverLoaded")
    settings("spark.sql.catalog.default_iceberg.type", "hadoop")
    rows, stats = both_ways(spark, lambda: spark.read.parquet(root).where("k = 1"))
    assert stats.per_dataset[0].skipped_by_index == {"MinMax(k)": 2}


# -- 4. session settings that change what functions compute --------------------------------

def test_formatted_hour_built_in_utc_is_not_used_in_another_zone(spark, tmp_path, settings):
    root = str(tmp_path / "hours")
    settings("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    for h in (1, 9, 17):
        spark.sql(f"SELECT TIMESTAMP'2024-01-01 {h:02d}:30:00' AS ts").write.mode("append").parquet(root)
    Skipstone.for_path(spark, root).build(Formatted("ts", "hour({col})"))
    rows, stats = both_ways(spark, lambda: spark.read.parquet(root).where("hour(ts) = 9"))
    assert stats.files_skipped == 2
    settings("spark.sql.session.timeZone", "America/Los_Angeles")
    rows, stats = both_ways(spark, lambda: spark.read.parquet(root).where("hour(ts) = 9"))
    assert len(rows) == 1
    assert "time zone" in unanswered(stats)


def test_formatted_size_built_with_ansi_is_not_used_without(spark, tmp_path, settings):
    root = str(tmp_path / "sizes")
    spark.createDataFrame([([1, 2],)], "arr array<int>").write.mode("append").parquet(root)
    spark.createDataFrame([(None,)], "arr array<int>").write.mode("append").parquet(root)
    settings("spark.sql.ansi.enabled", "true")
    Skipstone.for_path(spark, root).build(Formatted("arr", "size({col})"))
    settings("spark.sql.ansi.enabled", "false")
    settings("spark.sql.legacy.sizeOfNull", "true")
    rows, stats = both_ways(spark, lambda: spark.read.parquet(root).where("size(arr) = -1"))
    assert rows == [(None,)]


def test_python_udf_registered_again_with_another_body_is_not_answered(spark, tmp_path):
    root = str(tmp_path / "udf_body")
    for i in range(3):
        spark.createDataFrame([(i,)], "v int").write.mode("append").parquet(root)

    def fmt(v: int) -> str:
        return str(v)
    spark.udf.register("fmt_v", fmt)
    Skipstone.for_path(spark, root).build(Formatted("v", fmt, "fmt_v"))
    rows, stats = both_ways(spark, lambda: spark.sql(f"SELECT v FROM parquet.`{root}` WHERE fmt_v(v) = '1'"))
    assert stats.per_dataset[0].skipped_by_index == {"Formatted(v, fmt_v)": 2}

    def fmt_v(v: int) -> str:
        return str(v * 10)
    spark.udf.register("fmt_v", fmt_v)
    rows, stats = both_ways(spark, lambda: spark.sql(f"SELECT v FROM parquet.`{root}` WHERE fmt_v(v) = '10'"))
    assert rows == [(1,)]
    assert "registered again" in unanswered(stats)


# -- 5 and 6. empty files and parse modes --------------------------------------------------

def test_a_header_only_csv_is_empty_only_when_read_with_a_header(spark, tmp_path):
    root = str(tmp_path / "header_only")
    write_text(root, "a.csv", "k\n")
    write_text(root, "b.csv", "k\n5\n")
    Skipstone.for_dataframe(spark.read.option("header", "true").schema("k string").csv(root)).build(MinMax("k"))
    rows, stats = both_ways(spark, lambda: spark.read.schema("k string").csv(root).where("k = 'k'"))
    assert rows == [("k",), ("k",)]
    rows, stats = both_ways(spark, lambda: spark.read.text(root).where("value = 'k'"))
    assert len(rows) == 2


def test_a_file_of_comments_is_empty_only_with_the_comment_option(spark, tmp_path):
    root = str(tmp_path / "comments")
    write_text(root, "a.csv", "#1\n")
    write_text(root, "b.csv", "2\n")
    Skipstone.for_dataframe(spark.read.option("comment", "#").schema("k string").csv(root)).build(MinMax("k"))
    rows, _ = both_ways(spark, lambda: spark.read.schema("k string").csv(root).where("k = '#1'"))
    assert rows == [("#1",)]


def test_dropmalformed_reads_are_never_skipped_on(spark, tmp_path):
    root = str(tmp_path / "malformed")
    write_text(root, "a.csv", "99,notanint\n1,2\n")
    write_text(root, "b.csv", "3,4\n")
    read = lambda: spark.read.schema("x int, y int").option("mode", "DROPMALFORMED").csv(root)  # noqa: E731
    Skipstone.for_dataframe(read()).build(MinMax("x"), ValueList("x"))
    rows, stats = both_ways(spark, lambda: read().select("x").where("x = 99"))
    assert stats.files_skipped == 0
    assert "DROPMALFORMED" in unanswered(stats)


def test_python_udf_indexed_before_it_is_registered_is_answered_once_registered(spark, tmp_path):
    root = str(tmp_path / "udf_later")
    for i in range(3):
        spark.createDataFrame([(i,)], "v int").write.mode("append").parquet(root)

    def tag(v: int) -> str:
        return f"t{v}"
    # The build calls tag itself and records its digest; the query's registered UDF must match it.
    Skipstone.for_path(spark, root).build(Formatted("v", tag, "tag_v"))
    spark.udf.register("tag_v", tag)
    rows, stats = both_ways(spark, lambda: spark.sql(f"SELECT v FROM parquet.`{root}` WHERE tag_v(v) = 't2'"))
    assert rows == [(2,)]
    assert stats.per_dataset[0].skipped_by_index == {"Formatted(v, tag_v)": 2}


@dataclass(frozen=True)
class CodeRange(RuleIndex):
    """Per file the range of code_of(column), a UDF the user registered."""

    column: str
    kind: ClassVar[str] = "code_range_ctx"
    metadata: ClassVar = (Role("lo", "int", "min(code_of({col}))"), Role("hi", "int", "max(code_of({col}))"))
    rules: ClassVar = Rule.range("code_of({col})", "{lo}", "{hi}")


def test_user_kind_over_a_python_udf_registered_again_is_not_answered(spark, tmp_path):
    root = str(tmp_path / "udf_kind")
    for i in range(3):
        spark.createDataFrame([(i,)], "v int").write.mode("append").parquet(root)
    spark.udf.register("code_of", lambda v: v + 100, "int")
    Skipstone.for_path(spark, root).build(CodeRange("v"))
    query = lambda: spark.sql(f"SELECT v FROM parquet.`{root}` WHERE code_of(v) = 101")  # noqa: E731
    rows, stats = both_ways(spark, query)
    assert rows == [(1,)]
    assert stats.per_dataset[0].skipped_by_index == {"CodeRange(v)": 2}
    spark.udf.register("code_of", lambda v: v + 99, "int")
    rows, stats = both_ways(spark, query)
    assert rows == [(2,)]
    assert "registered again" in unanswered(stats)
