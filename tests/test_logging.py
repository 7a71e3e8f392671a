"""The library logs what it decides on the ``skipstone`` loggers, for applications that configure
logging (docs/logging.md): index builds and refreshes with their counts, what a query skipped,
layout policies' proposals and refusals with the reason, optimize commits, vacuums; metadata a
query could not use is a warning. Nothing is logged per row, nor on import."""
from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import skipstone
from skipstone import MinMax, Skipstone
from skipstone.layout import AmoebaAdaptive, KdTree
from tests.datasets import clustered_table, write_clustered, write_file
from tests.table.table_data import batch

ROOT = Path(__file__).resolve().parents[1]


def messages(caplog, logger: str, level: int = logging.INFO) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name.startswith(logger) and r.levelno == level]


def test_a_build_logs_the_indexes_and_files_it_indexed(spark, tmp_path, caplog):
    root = write_clustered(str(tmp_path / "events"), files=3)
    with caplog.at_level(logging.INFO, logger="skipstone"):
        Skipstone.for_path(spark, root).build(MinMax("k"))
    [built] = messages(caplog, "skipstone.dataset")
    assert built.startswith("built MinMax(k) on ") and "events: 3 files indexed, metadata version" in built


def test_a_refresh_logs_files_indexed_and_skipped_as_fresh(spark, tmp_path, caplog):
    root = write_clustered(str(tmp_path / "events"), files=3)
    ds = Skipstone.for_path(spark, root).build(MinMax("k"))
    write_file(root, 3, clustered_table(3))
    with caplog.at_level(logging.DEBUG, logger="skipstone"):
        ds.refresh()
    [refreshed] = messages(caplog, "skipstone.dataset")
    assert "events: 1 files indexed, 3 skipped as fresh, metadata version" in refreshed
    [detail] = messages(caplog, "skipstone.dataset", logging.DEBUG)
    assert "part-00003.parquet" in detail


def test_query_stats_log_what_was_skipped_and_warn_of_unindexed_files(spark, tmp_path, caplog):
    root = write_clustered(str(tmp_path / "events"), files=4)
    Skipstone.for_path(spark, root).build(MinMax("k"))
    spark.read.parquet(root).where("k = 150").collect()
    with caplog.at_level(logging.INFO, logger="skipstone"):
        skipstone.last_query_stats(spark)
    assert [m for m in messages(caplog, "skipstone.stats") if "skipped 3 of 4 files" in m]
    assert not messages(caplog, "skipstone.stats", logging.WARNING)
    caplog.clear()
    write_file(root, 4, clustered_table(4))  # not indexed: read, and worth a warning
    spark.read.parquet(root).where("k = 150").collect()
    with caplog.at_level(logging.INFO, logger="skipstone"):
        assert skipstone.last_query_stats(spark).per_dataset[0].files_unindexed == 1
    [warning] = messages(caplog, "skipstone.stats", logging.WARNING)
    assert warning.startswith("1 files of ") and "refresh()" in warning


def test_metadata_built_under_another_read_context_is_a_warning(spark, tmp_path, caplog):
    root = str(tmp_path / "hive_orc")
    for i in range(3):
        spark.createDataFrame([(i, 100 + i)], "_col0 int, _col1 int").write.mode("append").orc(root)
    Skipstone.for_dataframe(spark.read.schema("a int, b int").orc(root)).build(MinMax("a"))
    spark.read.schema("b int, a int").orc(root).where("a > 100").collect()  # columns by position: a is now _col1
    with caplog.at_level(logging.INFO, logger="skipstone"):
        skipstone.last_query_stats(spark)
    [warning] = messages(caplog, "skipstone.stats", logging.WARNING)
    assert "hive_orc: MinMax(a) not used: " in warning and "position" in warning


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    return Skipstone.create(spark, str(tmp_path_factory.mktemp("logged") / "t"), batch(spark, 0, 2000),
                            layout=KdTree(block_rows=500, columns=["a"]))


def test_an_optimize_without_workload_logs_the_policys_refusal_and_reason(table, caplog):
    with caplog.at_level(logging.INFO, logger="skipstone"):
        assert table.optimize(AmoebaAdaptive(window=50)) is None
    assert messages(caplog, "skipstone.layout.policies") == [
        "AmoebaAdaptive declines: none of the last 50 logged queries filters on a layout column"]
    assert [m for m in messages(caplog, "skipstone.table.optimize") if "proposes no layout change" in m]
    assert messages(caplog, "skipstone.table.handle") == [f"optimize of {table.root}: no strategy found anything to do"]


def test_an_append_and_the_compaction_after_it_log_their_commits(spark, table, caplog):
    with caplog.at_level(logging.INFO, logger="skipstone"):
        appended = table.append(batch(spark, 2000, 400))
        compacted = table.optimize()
    logged = messages(caplog, "skipstone.table.handle")
    assert f"append to {table.root} committed version {appended.version}: 400 rows in {appended.files_added} files" \
        in logged
    assert compacted is not None and compacted.strategy == "compaction"
    assert (f"optimize of {table.root} committed version {compacted.version} by compaction ({compacted.reason}): "
            f"{compacted.rows_rewritten} rows rewritten, {compacted.files_added} files added, "
            f"{compacted.files_removed} removed, {compacted.bytes_read} bytes read") in logged


def test_a_vacuum_logs_how_many_files_it_deleted(table, caplog):
    with caplog.at_level(logging.INFO, logger="skipstone"):
        deleted = table.vacuum(retention_hours=0, force=True).count()
    assert deleted > 0  # the files the compaction replaced
    [logged] = messages(caplog, "skipstone.table.handle")
    assert logged.startswith(f"vacuum of {table.root} (retention 0 hours, forced): deleted {deleted} files")


def test_importing_skipstone_logs_nothing_and_leaves_output_to_the_application():
    code = textwrap.dedent("""
        import logging, io
        stream = io.StringIO()
        logging.basicConfig(level=logging.DEBUG, stream=stream)
        import skipstone
        handlers = logging.getLogger("skipstone").handlers
        print([type(h).__name__ for h in handlers], repr(stream.getvalue()))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == "['NullHandler'] ''", out.stderr
