"""Metadata holds only for reads made the way it was built: format, reader options, time zone,
Parquet calendar rebase. Reads made differently read every file, and say why."""
from __future__ import annotations

import datetime as dt
import os

import pytest

from conftest import run_both_ways, run_df_both_ways
from skipstone import MinMax, Skipstone, SkipstoneError


def write_text(root: str, name: str, text: str) -> None:
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, name), "w") as f:
        f.write(text)


both_ways_df = run_df_both_ways


@pytest.fixture()
def utc_session(spark):
    yield spark
    spark.conf.set("spark.sql.session.timeZone", "UTC")


def test_csv_timestamps_indexed_in_one_zone_are_not_trusted_in_another(utc_session, tmp_path):
    spark = utc_session
    root = str(tmp_path / "events")
    for i in range(3):
        write_text(root, f"part-{i}.csv", "".join(f"2024-01-0{i + 1} {h:02d}:00:00,{h}\n" for h in range(0, 24, 6)))
    read = lambda: spark.read.schema("ts timestamp, h int").csv(root)  # noqa: E731
    Skipstone.for_dataframe(read()).build(MinMax("ts"))
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    # The CSV text is now parsed as Los Angeles time, and so is the literal: 2024-01-02 18:00
    # is a value of file 1, while the UTC-built metadata places that instant in file 2.
    rows, stats = both_ways_df(spark, lambda: read().where("ts = TIMESTAMP '2024-01-02 18:00:00'").select("h"))
    assert rows == [(18,)]
    assert any("time zone" in u for u in stats.per_dataset[0].unanswered)
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    rows, stats = both_ways_df(spark, lambda: read().where("ts = TIMESTAMP '2024-01-02 18:00:00'"))
    assert stats.files_skipped == 2


def test_csv_null_marker_option_changes_values_so_metadata_is_not_used(spark, tmp_path):
    root = str(tmp_path / "nulls")
    for i in range(3):
        write_text(root, f"part-{i}.csv", "".join(f"{v}\n" for v in ([-1, 5] if i == 0 else [i * 10, i * 10 + 1])))
    Skipstone.for_dataframe(spark.read.schema("k int").option("nullValue", "-1").csv(root)).build(MinMax("k"))
    read_plain = lambda: spark.read.schema("k int").csv(root)  # noqa: E731
    rows, stats = both_ways_df(spark, lambda: read_plain().where("k = -1"))
    assert rows == [(-1,)]
    assert stats.files_skipped == 0
    assert any("nullvalue" in u.lower() for u in stats.per_dataset[0].unanswered)
    rows, stats = both_ways_df(
        spark, lambda: spark.read.schema("k int").option("nullValue", "-1").csv(root).where("k = 11"))
    assert rows == [(11,)]
    assert stats.files_skipped == 2


def test_csv_user_schema_in_another_column_order_is_not_trusted(spark, tmp_path):
    root = str(tmp_path / "positional")
    for i in range(3):
        write_text(root, f"part-{i}.csv", f"{i},{100 + i}\n")
    Skipstone.for_dataframe(spark.read.schema("a int, b int").csv(root)).build(MinMax("a"), MinMax("b"))
    # CSV maps columns by position: here `a` is the file's second column.
    rows, stats = both_ways_df(spark, lambda: spark.read.schema("b int, a int").csv(root).where("a = 101"))
    assert rows == [(1, 101)]
    assert stats.files_skipped == 0


def test_parquet_dates_written_in_legacy_calendar_are_not_taken_from_footers(spark, tmp_path):
    root = str(tmp_path / "ancient")
    spark.conf.set("spark.sql.parquet.datetimeRebaseModeInWrite", "LEGACY")
    try:
        for i in range(4):
            spark.sql(f"SELECT DATE'1000-01-01' + {i} AS d").write.mode("append").parquet(root)
    finally:
        spark.conf.unset("spark.sql.parquet.datetimeRebaseModeInWrite")
    Skipstone.for_path(spark, root).build(MinMax("d"))
    rows, stats = run_both_ways(spark, f"SELECT d FROM parquet.`{root}` WHERE d = DATE'1000-01-02'")
    assert rows == [(dt.date(1000, 1, 2),)]


def test_refresh_reads_new_files_with_the_options_of_the_build(spark, tmp_path):
    root = str(tmp_path / "semicolons")
    write_text(root, "part-0.csv", "k;s\n1;a\n2;b\n")
    read = lambda: spark.read.option("sep", ";").option("header", True).schema("k int, s string").csv(root)  # noqa: E731
    Skipstone.for_dataframe(read()).build(MinMax("k"))
    write_text(root, "part-1.csv", "k;s\n50;x\n51;y\n")
    # A handle made without the options still refreshes the way the build read.
    Skipstone.for_path(spark, root, format="csv").refresh()
    rows, stats = both_ways_df(spark, lambda: read().where("k = 50"))
    assert rows == [(50, "x")]
    assert stats.files_skipped == 1


def test_catalog_table_options_are_used_by_build_refresh_and_queries(spark, tmp_path):
    root = str(tmp_path / "table")
    write_text(root, "part-0.csv", "k;s\n1;a\n2;b\n")
    spark.sql(f"CREATE TABLE semi (k INT, s STRING) USING csv OPTIONS (sep ';', header 'true') LOCATION '{root}'")
    try:
        ds = Skipstone.for_table(spark, "semi")
        ds.build(MinMax("k"))
        write_text(root, "part-1.csv", "k;s\n50;x\n")
        spark.sql("REFRESH TABLE semi")
        ds.refresh()
        rows, stats = run_both_ways(spark, "SELECT * FROM semi WHERE k = 50")
        assert rows == [(50, "x")]
        assert stats.files_skipped == 1
    finally:
        spark.sql("DROP TABLE semi")


def test_for_path_on_json_names_the_format_found(spark, tmp_path):
    root = str(tmp_path / "logs")
    write_text(root, "part-0.json", '{"k": 1}\n')
    with pytest.raises(SkipstoneError, match="holds json files"):
        Skipstone.for_path(spark, root)


def test_for_dataframe_indexes_json_as_read(spark, tmp_path):
    root = str(tmp_path / "json")
    for i in range(3):
        write_text(root, f"part-{i}.json", "".join(f'{{"k": {i * 10 + j}}}\n' for j in range(3)))
    read = lambda: spark.read.schema("k long").json(root)  # noqa: E731
    Skipstone.for_dataframe(read()).build(MinMax("k"))
    rows, stats = both_ways_df(spark, lambda: read().where("k = 21"))
    assert rows == [(21,)]
    assert stats.files_skipped == 2
