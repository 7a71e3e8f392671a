"""Bounds that hold for the bytes Spark compares: strings that are not valid UTF-8, and
timestamps stored as INT96, whose footer statistics cannot be used."""
from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import run_both_ways
from skipstone import MinMax, Skipstone
from skipstone.layout import Amoeba

# C3 71 is Latin-1 text ("Ãq" would be C3 83 71 in UTF-8): C3 starts a two-byte sequence and 71
# cannot continue it. Java decodes it to U+FFFD 'q', whose bytes EF BF BD 71 sort after C3 71.
LATIN1 = b"\xc3q"
LATIN1_SQL = "CAST(X'C371' AS STRING)"
# One file per list: the middle one holds only the undecodable value.
STRING_FILES = [[b"a", b"b"], [LATIN1], [b"x", b"y"]]


def run_both_ways_on_strings(spark, sql: str):
    # Spark's own Parquet pushdown hands the literal to Parquet as a java.lang.String, so it
    # looks for EF BF BD 71 and drops the row group holding C3 71: it stays off on both sides.
    return run_both_ways(spark, sql, parquet_pushdown=False)


def write_strings_with_spark(spark, root: str) -> None:
    for i, values in enumerate(STRING_FILES):
        rows = " UNION ALL ".join(f"SELECT {i} AS k, CAST(X'{v.hex().upper()}' AS STRING) AS s" for v in values)
        spark.sql(rows).coalesce(1).write.mode("append").parquet(root)


def write_strings_with_pyarrow(root: str, files: list[list[bytes]] = STRING_FILES) -> None:
    os.makedirs(root, exist_ok=True)
    for i, values in enumerate(files):
        # Other tools annotate binary columns as strings without checking them: a view, not a
        # cast, keeps pyarrow from validating the bytes.
        s = pa.array(values, pa.binary()).view(pa.string())
        pq.write_table(pa.table({"k": pa.array([i] * len(values), pa.int64()), "s": s}),
                       os.path.join(root, f"part-{i:05d}.parquet"))


def write_latin1_files(spark, root: str, writer: str) -> None:
    if writer == "spark":
        write_strings_with_spark(spark, root)
    else:
        write_strings_with_pyarrow(root)


@pytest.mark.parametrize("writer", ["spark", "pyarrow"])
def test_footer_bounds_of_invalid_utf8_strings_keep_the_file_holding_them(spark, tmp_path, writer):
    root = str(tmp_path / writer)
    write_latin1_files(spark, root, writer)
    Skipstone.for_path(spark, root).build(MinMax("s"))
    rows, stats = run_both_ways_on_strings(spark, f"SELECT k FROM parquet.`{root}` WHERE s = {LATIN1_SQL}")
    assert rows == [(1,)]
    assert stats.files_skipped == 2


@pytest.mark.parametrize("writer", ["spark", "pyarrow"])
def test_scanned_bounds_of_invalid_utf8_strings_keep_the_file_holding_them(spark, tmp_path, writer):
    root = str(tmp_path / writer)
    write_latin1_files(spark, root, writer)
    Skipstone.for_path(spark, root).build(MinMax("s"), use_footers=False)
    rows, stats = run_both_ways_on_strings(spark, f"SELECT k FROM parquet.`{root}` WHERE s = {LATIN1_SQL}")
    assert rows == [(1,)]
    assert stats.files_skipped == 2


def test_invalid_utf8_strings_are_ordered_by_their_bytes(spark, tmp_path):
    # C3 71 sorts after 'y' (79) by bytes; decoded, U+FFFD would also, but below EF BF BD 72
    root = str(tmp_path / "range")
    write_strings_with_pyarrow(root)
    Skipstone.for_path(spark, root).build(MinMax("s"))
    rows, stats = run_both_ways_on_strings(spark, f"SELECT k FROM parquet.`{root}` WHERE s > 'y' AND s < CAST(X'C372' AS STRING)")
    assert rows == [(1,)]
    assert stats.files_skipped == 2


def test_like_pattern_with_undecodable_bytes_keeps_files_spark_matches(spark, tmp_path):
    # A LIKE with '_' stays a LIKE (Spark turns only '%' patterns into byte comparisons), and
    # LIKE compares decoded text: pattern and row both decode to 'p', U+FFFD, 'q', then one char
    root = str(tmp_path / "like")
    write_strings_with_pyarrow(root, [[b"a", b"b"], [b"p" + LATIN1 + b"z"], [b"x", b"y"]])
    Skipstone.for_path(spark, root).build(MinMax("s"))
    rows, stats = run_both_ways_on_strings(spark, f"SELECT k FROM parquet.`{root}` WHERE s LIKE 'p' || {LATIN1_SQL} || '_'")
    assert rows == [(1,)]
    assert stats.files_skipped == 2


def write_timestamps(spark, root: str, files: range, timestamp_type: str = "INT96") -> None:
    """File i holds k and ts = k seconds after the epoch for k in [10 i, 10 i + 10)."""
    spark.conf.set("spark.sql.parquet.outputTimestampType", timestamp_type)
    try:
        for i in files:
            spark.sql(f"SELECT id AS k, timestamp_seconds(id) AS ts FROM range({10 * i}, {10 * i + 10})") \
                .coalesce(1).write.mode("append").parquet(root)
    finally:
        spark.conf.unset("spark.sql.parquet.outputTimestampType")


def test_int96_timestamps_are_indexed_by_scanning_so_files_are_skipped(spark, tmp_path):
    root = str(tmp_path / "int96")
    write_timestamps(spark, root, range(4))
    Skipstone.for_path(spark, root).build(MinMax("ts"))
    rows, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{root}` WHERE ts < timestamp_seconds(15)")
    assert len(rows) == 15
    assert stats.files_skipped == 2
    assert [d.unanswered for d in stats.per_dataset] == [()]


def test_int96_files_among_footer_files_are_scanned_and_both_skip(spark, tmp_path):
    root = str(tmp_path / "mixed")
    write_timestamps(spark, root, range(0, 2), "INT96")
    write_timestamps(spark, root, range(2, 4), "TIMESTAMP_MICROS")
    Skipstone.for_path(spark, root).build(MinMax("ts"), MinMax("k"))
    rows, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{root}` WHERE ts >= timestamp_seconds(12) "
                                       "AND ts < timestamp_seconds(25)")
    assert len(rows) == 13
    assert stats.files_skipped == 2
    _, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{root}` WHERE ts >= timestamp_seconds(20)")
    assert stats.files_skipped == 2
    _, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{root}` WHERE k < 10")
    assert stats.files_skipped == 3


def test_files_written_without_statistics_are_scanned_so_they_are_skipped(spark, tmp_path):
    root = str(tmp_path / "nostats")
    os.makedirs(root)
    for i in range(3):
        table = pa.table({"k": pa.array(range(10 * i, 10 * i + 10), pa.int64())})
        pq.write_table(table, os.path.join(root, f"part-{i}.parquet"), write_statistics=False)
    Skipstone.for_path(spark, root).build(MinMax("k"))
    rows, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{root}` WHERE k = 25")
    assert rows == [(25,)]
    assert stats.files_skipped == 2


def test_a_table_laid_out_on_invalid_utf8_strings_is_created_and_skips(spark, tmp_path):
    # 'a…' rows, then C3 41…C3 54 (not UTF-8), then 'ü…' (C3 BC…): the undecodable values sit
    # between two ranges of valid strings, in the byte order Spark compares
    df = spark.sql("""SELECT id AS k, CASE
        WHEN id < 200 THEN concat('a', lpad(id, 3, '0'))
        WHEN id < 400 THEN CAST(unhex(concat('C3', hex(65 + id % 20))) AS STRING)
        ELSE concat('ü', lpad(id, 3, '0')) END AS s FROM range(600)""")
    table = Skipstone.create(spark, str(tmp_path / "t"), df, layout=Amoeba(block_rows=100, columns=["s"]))
    assert spark.read.parquet(table.root).count() == 600
    value = "CAST(X'C341' AS STRING)"
    # the files a MinMax on s must skip: those whose byte range leaves the value out
    spark.conf.set("spark.skipstone.enabled", "false")
    try:
        ranges = spark.sql(f"SELECT min(s) <= {value} AND {value} <= max(s) FROM parquet.`{table.root}` "
                           "GROUP BY input_file_name()").collect()
    finally:
        spark.conf.set("spark.skipstone.enabled", "true")
    rows, stats = run_both_ways_on_strings(spark, f"SELECT k FROM parquet.`{table.root}` WHERE s = {value}")
    assert len(rows) == 10
    assert stats.files_skipped == sum(1 for (covers,) in ranges if not covers) > 0
