"""Copies of a managed table, so that tests which change a table can share one created once.

A table's container holds everything about it, with paths relative to its root, except the
skipping metadata, which names files by absolute path: the copy indexes its own files again
(from the footers of a handful of files), so it skips exactly as the original.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from skipstone import ManagedTable, Skipstone
from skipstone.table import failpoints
from skipstone.table.indexing import replace_metadata


def local_path(root: str) -> str:
    return root.replace("file:", "", 1)


def copy_table(spark: Any, table: ManagedTable, destination: Path) -> ManagedTable:
    """A table equal to ``table`` (files, versions, sample, workload log) at ``destination``;
    ``copytree`` keeps sizes and modification times, which the manifest records."""
    spark._jvm.io.skipstone.table.Tables.flushWorkload(spark._jsparkSession)  # queries so far are on disk
    shutil.copytree(local_path(table.root), destination)
    copy = Skipstone.for_path(spark, str(destination))
    assert isinstance(copy, ManagedTable)
    v = copy.current()
    files = [(v.absolute(f), f.size, f.modification_time) for f in v.files]
    published, _ = replace_metadata(spark, copy.root, files, files)  # every file is new to the copy's metadata
    # Queries use the metadata version the newest table version records: put the copy's own
    # metadata under that number, so that the copy's log stays the original's.
    if v.metadata_version is not None and published != v.metadata_version:
        container = Path(local_path(copy.root)) / "_skipstone"
        recorded = container / f"v{v.metadata_version:020d}"
        shutil.rmtree(recorded)
        (container / f"v{published:020d}").rename(recorded)
    return copy


def table_fixtures(name: str, rows: Callable[[Any], Any], layout: Any) -> tuple[Any, Any]:
    """The fixtures ``created`` and ``table`` of a module whose tests each change a table:
    ``created`` is the table of ``rows(spark)`` under ``layout``, made once for the module in a
    folder named ``name``; ``table`` is a copy of it for one test, and after the test no
    failpoint stays armed. A module takes both by name::

        created, table = table_fixtures("append", lambda spark: batch(spark, 0, 2000),
                                        KdTree(block_rows=500, columns=["a"]))
    """
    @pytest.fixture(scope="module")
    def created(spark: Any, tmp_path_factory: Any) -> ManagedTable:
        return Skipstone.create(spark, str(tmp_path_factory.mktemp(name) / "t"), rows(spark), layout=layout)

    @pytest.fixture
    def table(spark: Any, created: ManagedTable, tmp_path: Path) -> Iterator[ManagedTable]:
        yield copy_table(spark, created, tmp_path / "t")
        failpoints.disarm_all(spark)

    return created, table
