"""vacuum: deletes exactly what no retained version needs, never a live file, never anything
outside the root; refuses a short retention unless forced; a vacuum that dies half way resumes."""
from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import pytest

from skipstone import MinMax
from skipstone.errors import SkipstoneError
from skipstone.layout import KdTree
from skipstone.table import failpoints, manifest
from tests.table.table_copies import local_path, table_fixtures
from tests.table.table_data import as_multiset, batch

ROWS = 2000


@pytest.fixture(scope="module")
def source(spark):
    return batch(spark, 0, ROWS)


created, table = table_fixtures("vacuum", lambda spark: batch(spark, 0, ROWS), KdTree(block_rows=500, columns=["a"]))


def rewrite_one_file(spark, table) -> tuple[str, str]:
    """Commit a version that replaces one file by a copy of it (same rows, new name), as an
    optimize replaces files; returns (old, new) relative paths."""
    v = table.current()
    old = v.files[0]
    new = f"b{old.block}-part-rewritten-{uuid.uuid4().hex}.snappy.parquet"
    shutil.copy2(os.path.join(local_path(table.root), old.path), os.path.join(local_path(table.root), new))
    st = os.stat(os.path.join(local_path(table.root), new))
    added = manifest.DataFile(new, st.st_size, st.st_mtime_ns // 1_000_000, old.block, old.rows)
    manifest.commit(spark, table.root, v.version, "REWRITE", [added], [old.path])
    return old.path, new


def data_files_on_disk(table) -> set[str]:
    return {n for n in os.listdir(local_path(table.root)) if n.endswith(".parquet")}


def rows(spark, table):
    return as_multiset(spark.read.parquet(table.root))


def test_a_retention_under_the_tables_is_refused_unless_forced(table):
    with pytest.raises(SkipstoneError, match="vacuum.retentionHours.*force=True"):
        table.vacuum(retention_hours=1)
    assert table.vacuum(retention_hours=1, force=True).count() == 0  # nothing is old enough yet


def test_dry_run_lists_the_replaced_file_and_deletes_nothing(spark, table):
    old, new = rewrite_one_file(spark, table)
    before = data_files_on_disk(table)
    listed = table.vacuum(retention_hours=0, dry_run=True, force=True).collect()
    assert [(r.kind, os.path.basename(r.path)) for r in listed if r.kind == "data"] == [("data", old)]
    assert data_files_on_disk(table) == before


def test_vacuum_deletes_exactly_the_files_no_retained_version_lists(spark, table, source):
    old, _ = rewrite_one_file(spark, table)
    assert table.vacuum().count() == 0  # within the default retention, the replaced file stays
    deleted = table.vacuum(retention_hours=0, force=True).collect()
    assert [os.path.basename(r.path) for r in deleted if r.kind == "data"] == [old]
    assert data_files_on_disk(table) == {f.path for f in table.current().files}
    assert rows(spark, table) == as_multiset(source)


def test_metadata_versions_recorded_by_retained_versions_stay(spark, table):
    first = table.current().metadata_version
    table.build(MinMax("a"), MinMax("b"))  # a version recording a newer metadata version
    deleted = table.vacuum(retention_hours=0, force=True).collect()
    assert [os.path.basename(r.path) for r in deleted if r.kind == "metadata"] == [f"v{first:020d}"]
    container = Path(local_path(table.root)) / "_skipstone"
    assert (container / f"v{table.current().metadata_version:020d}").is_dir()
    spark.sql(f"SELECT count(*) FROM parquet.`{table.root}` WHERE a < 100").collect()
    import skipstone

    assert skipstone.last_query_stats(spark).files_skipped > 0


def test_files_other_writers_dropped_and_uncommitted_skipstone_files(spark, table, tmp_path):
    root = Path(local_path(table.root))
    one = table.current().files[0].path
    shutil.copy2(root / one, root / "foreign-writer.parquet")          # another writer's data: kept
    shutil.copy2(root / one, root / "b9-part-00000-orphan.snappy.parquet")  # a dead writer's: deleted
    deleted = {(r.kind, os.path.basename(r.path)) for r in table.vacuum(retention_hours=0, force=True).collect()}
    assert ("orphan", "b9-part-00000-orphan.snappy.parquet") in deleted
    assert (root / "foreign-writer.parquet").exists()


def test_nothing_outside_the_root_is_touched(spark, table, tmp_path):
    root = Path(local_path(table.root))
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "b1-part-00000-victim.snappy.parquet"
    victim.write_bytes(b"not the table's")
    os.utime(victim, (1, 1))
    (root / "b1-part-00000-link.snappy.parquet").symlink_to(victim)     # a link out of the root
    (outside / "escaped.parquet").write_bytes(b"not the table's")
    v = table.current()
    # a log entry (data that could have been edited) naming a path outside the root
    manifest.commit(spark, table.root, v.version, "EDITED", [manifest.DataFile("../outside/escaped.parquet", 1, 1, 0, 0)])
    manifest.commit(spark, table.root, v.version + 1, "EDITED", [], ["../outside/escaped.parquet"])
    deleted = table.vacuum(retention_hours=0, force=True).collect()
    assert victim.exists() and (outside / "escaped.parquet").exists()
    assert all(str(root) in r.path for r in deleted)


def test_a_vacuum_that_dies_half_way_resumes_and_never_deletes_a_live_file(spark, table, source):
    rewrite_one_file(spark, table)
    rewrite_one_file(spark, table)
    failpoints.arm(spark, "vacuum.halfDeleted")
    with pytest.raises(SkipstoneError, match="failpoint vacuum.halfDeleted"):
        table.vacuum(retention_hours=0, force=True)
    assert rows(spark, table) == as_multiset(source)
    pending = table.vacuum(retention_hours=0, dry_run=True, force=True).collect()
    assert len([r for r in pending if r.kind == "data"]) >= 1  # the intent's remaining files
    table.vacuum(retention_hours=0, force=True)
    assert data_files_on_disk(table) == {f.path for f in table.current().files}
    assert not list((Path(local_path(table.root)) / "_skipstone" / "vacuum").glob("*.json"))
    assert rows(spark, table) == as_multiset(source)
