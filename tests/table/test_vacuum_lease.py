"""A forced vacuum looping beside an appending thread: writers in flight hold a lease that every
vacuum honours, so each append commits exactly its rows (or fails clearly, committing nothing)."""
from __future__ import annotations

import os
import threading

import pytest
from pyspark.sql import functions as F

from skipstone import Skipstone
from skipstone.errors import SkipstoneError
from skipstone.layout import KdTree
from skipstone.table import failpoints
from tests.table.table_copies import local_path
from tests.table.table_data import as_multiset

ROWS = 200


def batch(spark, start, n):
    return spark.range(start, start + n).select(F.col("id").alias("a"), (F.col("id") % 7).alias("b"))


@pytest.fixture
def table(spark, tmp_path):
    return Skipstone.create(spark, str(tmp_path / "t"), batch(spark, 0, ROWS), layout=KdTree(block_rows=100, columns=["a"]))


def test_appends_beside_a_forced_vacuum_loop_commit_exactly_their_rows(spark, table):
    done, vacuums, vacuum_errors = threading.Event(), [], []

    def vacuum_loop():
        while not done.is_set():
            try:
                vacuums.append(table.vacuum(retention_hours=0, force=True).count())
            except Exception as e:  # a vacuum may fail; it must never take an append's rows
                vacuum_errors.append(e)

    vacuumer = threading.Thread(target=vacuum_loop)
    vacuumer.start()
    results, failures = [], []
    try:
        for i in range(4):
            try:
                results.append((i, table.append(batch(spark, 1000 * (i + 1), 100))))
            except SkipstoneError as e:
                failures.append((i, e))
    finally:
        done.set()
        vacuumer.join()
    assert len(vacuums) >= 2, "the vacuum loop ran beside the appends"
    assert not failures, f"appends failed: {failures}"
    assert all(r.rows == 100 for _, r in results)
    expected = batch(spark, 0, ROWS)
    for i, _ in results:
        expected = expected.union(batch(spark, 1000 * (i + 1), 100))
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(expected)


def test_an_append_whose_files_vanish_fails_clearly_and_commits_nothing(spark, table):
    committed = {f.path for f in table.current().files}

    def lose_the_new_files():  # another process deletes the append's files as they land
        for name in os.listdir(local_path(table.root)):
            if name.startswith("b") and name.endswith(".parquet") and name not in committed:
                os.remove(os.path.join(local_path(table.root), name))

    failpoints.arm(spark, "append.afterWrite", action=lose_the_new_files)
    try:
        with pytest.raises(SkipstoneError, match="committed nothing|nothing was committed"):
            table.append(batch(spark, 5000, 100))
    finally:
        failpoints.disarm_all(spark)
    assert table.version == 1
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(batch(spark, 0, ROWS))
