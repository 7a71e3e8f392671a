"""Continuous optimization: other writers' files are read unindexed until the unindexed strategy
absorbs them (oldest first, a bounded batch per iteration); fragmented blocks are compacted; the
loop stops when nothing is left or when told; settings live in the table's properties; two
optimizers at once and queries during optimize and vacuum never see a wrong answer."""
from __future__ import annotations

import math
import os
import shutil
import threading
import time

import pytest

import skipstone
from skipstone.errors import SkipstoneError
from skipstone.layout import KdTree
from tests.table.split_policy import SplitLargestBlock
from tests.table.table_copies import local_path, table_fixtures
from tests.table.table_data import as_multiset, batch, unindexed

ROWS = 1500


created, table = table_fixtures("continuous", lambda spark: batch(spark, 0, ROWS),
                                KdTree(block_rows=500, columns=["a"]))


def drop_foreign_file(spark, table, tmp_path, start, n, name, mtime):
    """Another writer's Parquet file of n rows, dropped into the table's root."""
    out = tmp_path / name
    batch(spark, start, n).coalesce(1).write.parquet(str(out))
    target = os.path.join(local_path(table.root), f"{name}.parquet")
    shutil.copy(next(out.glob("part-*.parquet")), target)
    os.utime(target, (mtime, mtime))


def count(spark, table, where="true"):
    return spark.sql(f"SELECT count(*) FROM parquet.`{table.root}` WHERE {where}").collect()[0][0]


def test_other_writers_files_are_read_then_absorbed_oldest_first(spark, table, tmp_path):
    drop_foreign_file(spark, table, tmp_path, 10_000, 100, "newer", 2_000_000_000)
    drop_foreign_file(spark, table, tmp_path, 20_000, 100, "older", 1_900_000_000)
    assert count(spark, table, "a >= 0") == ROWS + 200
    assert unindexed(skipstone.last_query_stats(spark)) == 2
    table.set_properties({"optimize.batchBytes": "1"})  # one file per iteration
    first = table.optimize()
    assert (first.strategy, table.history().collect()[-1].strategy) == ("unindexed", "unindexed")
    assert "1 of 2 unindexed files" in first.reason and first.rows_rewritten == 100
    assert '"older.parquet"' in table.history().collect()[-1].commit_info
    assert count(spark, table, "a >= 0") == ROWS + 200
    assert unindexed(skipstone.last_query_stats(spark)) == 1
    assert table.optimize().strategy == "unindexed"
    expected = batch(spark, 0, ROWS).union(batch(spark, 10_000, 100)).union(batch(spark, 20_000, 100))
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(expected)
    assert count(spark, table, "a >= 20000") == 100
    stats = skipstone.last_query_stats(spark)
    assert unindexed(stats) == 0 and stats.files_skipped > 0
    gone = {(r.kind, os.path.basename(r.path)) for r in table.vacuum(retention_hours=0, force=True).collect()}
    assert {("absorbed", "older.parquet"), ("absorbed", "newer.parquet")} <= gone
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(expected)


def test_fragmented_blocks_are_compacted_and_the_loop_stops_when_nothing_is_left(spark, table):
    table.set_properties({"optimize.strategies": "unindexed,compaction"})
    table.append(batch(spark, 0, 300))
    table.append(batch(spark, 600, 300))
    fragmented = len(table.current().files)
    done = table.optimize_continuously(max_seconds=600)
    assert done and {r.strategy for r in done} == {"compaction"}
    files = table.current().files
    rows_per_block: dict[int, int] = {}
    for f in files:
        rows_per_block[f.block] = rows_per_block.get(f.block, 0) + f.rows
    # as few files as the rows need: a file holds at most twice the target block size (500)
    assert len(files) < fragmented
    assert len(files) == sum(max(1, math.ceil(r / 1000)) for r in rows_per_block.values())
    expected = batch(spark, 0, ROWS).union(batch(spark, 0, 300)).union(batch(spark, 600, 300))
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(expected)
    assert table.optimize() is None


def test_the_loop_stops_when_told(spark, table):
    table.append(batch(spark, 0, 300))
    stop = threading.Event()
    stop.set()
    assert table.optimize_continuously(stop=stop) == []
    assert len(table.optimize_continuously(max_iterations=1, policy=SplitLargestBlock())) == 1


def test_settings_are_stored_with_the_table_and_checked(table):
    shown = table.properties()
    assert (shown["optimize.strategies"], shown["optimize.auto"], shown["vacuum.retentionHours"]) == \
        ("unindexed,compaction,layout", "false", "168")
    with pytest.raises(SkipstoneError, match="optimize.strategies.*'sorting'"):
        table.set_properties({"optimize.strategies": "unindexed,sorting"})
    with pytest.raises(SkipstoneError, match="optimize.batchBytes"):
        table.set_properties({"optimize.batchBytes": "lots"})
    with pytest.raises(SkipstoneError, match="vacuum.retentionCheck"):
        table.set_properties({"vacuum.retentionHours": "24"})
    table.set_properties({"vacuum.retentionHours": "24", "vacuum.retentionCheck": "false", "optimize.batchBytes": "1000"})
    assert table.properties()["vacuum.retentionHours"] == "24"
    with pytest.raises(SkipstoneError, match="24.0 hours"):
        table.vacuum(retention_hours=1)


def test_two_optimizers_at_once_one_commits_the_other_stops_cleanly(spark, table):
    outcomes: list[object] = []

    def optimize():
        try:
            outcomes.append(table.optimize(SplitLargestBlock()))
        except SkipstoneError as e:
            outcomes.append(e)

    threads = [threading.Thread(target=optimize) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    errors = [o for o in outcomes if isinstance(o, SkipstoneError)]
    assert all("was not committed" in str(e) for e in errors)
    assert table.current().version == 1 + len(outcomes) - len(errors) >= 2
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(batch(spark, 0, ROWS))
    on_disk = {n for n in os.listdir(local_path(table.root)) if n.endswith(".parquet")}
    assert {f.path for f in table.current().files} <= on_disk


def test_queries_during_optimize_and_vacuum_see_a_committed_version(spark, table):
    answer = (300, sum(range(300)))
    results: list[tuple[int, int]] = []
    failures: list[BaseException] = []
    done = threading.Event()

    # Readers give the schema: inferring it reads the footer of any file the directory lists, which
    # a vacuum may be deleting (an error, never a wrong answer; docs/maintenance.md).
    schema = spark.read.parquet(table.root).schema

    def query():
        while not done.is_set():
            try:
                r = (spark.read.schema(schema).parquet(table.root).where("a < 300")
                     .selectExpr("count(*)", "sum(a)").collect()[0])
                results.append((r[0], r[1]))
            except BaseException as e:  # noqa: BLE001 - reported below
                failures.append(e)

    readers = [threading.Thread(target=query) for _ in range(2)]
    for r in readers:
        r.start()
    try:
        table.optimize(SplitLargestBlock())
        time.sleep(5)  # longer than a query runs: no query still reads the replaced files
        table.optimize(SplitLargestBlock())
        deleted = table.vacuum(retention_hours=4 / 3600, force=True).collect()
        time.sleep(1)
    finally:
        done.set()
        for r in readers:
            r.join()
    assert not failures and results and all(r == answer for r in results)
    assert any(r.kind == "data" for r in deleted)


def test_a_file_dropped_in_is_read_once_the_cached_resolution_expires(spark, table, tmp_path):
    """The root's resolution (newest version, other writers' files) is trusted for
    metadataCacheTtlSeconds: a file dropped in meanwhile is read once it expires or the cache is
    cleared, at once with 0."""
    ttl = "spark.skipstone.metadataCacheTtlSeconds"
    spark.conf.set(ttl, "3600")
    try:
        assert count(spark, table) == ROWS  # resolves the root and caches it
        drop_foreign_file(spark, table, tmp_path, 10_000, 100, "late", 2_000_000_000)
        assert count(spark, table) == ROWS  # within the TTL: the cached resolution
        spark._jvm.io.skipstone.Skipstone.clearCache()
        assert count(spark, table) == ROWS + 100
        drop_foreign_file(spark, table, tmp_path, 30_000, 100, "later", 2_000_000_000)
        assert count(spark, table) == ROWS + 100  # cached again
        spark.conf.set(ttl, "0")
        assert count(spark, table, "a >= 0") == ROWS + 200
        assert unindexed(skipstone.last_query_stats(spark)) == 2
    finally:
        spark.conf.set(ttl, "0")  # the suite's setting (conftest)
