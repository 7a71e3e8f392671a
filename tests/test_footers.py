"""MinMax from Parquet footers: the same metadata as scanning, without reading data pages."""
from __future__ import annotations

import pytest

import skipstone
from conftest import normalized, run_both_ways
from datasets import write_clustered
from skipstone import MinMax, Skipstone

FOOTER_COLUMNS = ("k", "s", "d", "ts", "dec", "n")


def metadata_rows(spark, root: str):
    _, table_dir, _ = Skipstone.for_path(spark, root)._current()
    return normalized(spark.read.parquet(table_dir).drop("mtime").collect())


@pytest.mark.parametrize("writer", ["pyarrow", "spark"])
def test_footer_metadata_equals_scanned_metadata(spark, tmp_path, writer):
    root = str(tmp_path / writer)
    if writer == "pyarrow":
        write_clustered(root)
    else:
        source = write_clustered(str(tmp_path / "source"))
        spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
        try:
            spark.read.parquet(source).repartitionByRange(5, "k").write.parquet(root)
        finally:
            spark.conf.unset("spark.sql.parquet.outputTimestampType")
    indexes = [MinMax(c) for c in FOOTER_COLUMNS]
    Skipstone.for_path(spark, root).build(*indexes, use_footers=False)
    scanned = metadata_rows(spark, root)
    Skipstone.for_path(spark, root).build(*indexes)
    assert metadata_rows(spark, root) == scanned


def test_skipping_with_footer_metadata(spark, tmp_path):
    root = write_clustered(str(tmp_path / "events"))
    Skipstone.for_path(spark, root).build(MinMax("k"), MinMax("ts"))
    _, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{root}` WHERE k >= 900 OR ts < '2024-01-01 00:30:00'")
    assert stats.files_skipped == 8


def test_floating_column_is_scanned_so_nan_keeps_its_file(spark, tmp_path):
    # file 9 holds NaN, which footers leave out of max; x > 95 must still read file 9
    root = write_clustered(str(tmp_path / "floats"))
    Skipstone.for_path(spark, root).build(MinMax("x"))
    rows, stats = run_both_ways(spark, f"SELECT x FROM parquet.`{root}` WHERE x > 95")
    assert ("NaN",) in rows
    assert stats.files_skipped == 9


def test_refresh_reads_footers_of_new_files_only(spark, tmp_path):
    from datasets import clustered_table, write_file
    import pyarrow as pa

    root = write_clustered(str(tmp_path / "grow"), files=3)
    ds = Skipstone.for_path(spark, root)
    ds.build(MinMax("k"))
    t = clustered_table(0)
    write_file(root, 3, t.set_column(0, "k", pa.array([v + 9000 for v in t.column("k").to_pylist()], pa.int32())))
    ds.refresh()
    _, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{root}` WHERE k > 9000")
    assert stats.files_skipped == 3 and stats.per_dataset[0].files_unindexed == 0
    assert skipstone.last_query_stats(spark).files_total == 4
