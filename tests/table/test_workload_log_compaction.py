"""Vacuum compacts a table's workload log (``io.skipstone.table.WorkloadLogCompaction``): many
small files become one, records past ``workloadLog.retentionDays`` go, and whoever reads the log
meanwhile (the whole log, the records after a cursor, ``t.workload()``) sees every other record
exactly once and in the same order: after the compaction, while it is killed half way, and
while two vacuums race."""
from __future__ import annotations

import json
import os
import threading
import time
import uuid

import numpy as np
import pytest
from pyspark.sql import functions as F

from skipstone import Skipstone
from skipstone.errors import SkipstoneError
from skipstone.layout import KdTree
from skipstone.table import failpoints, logged_workload
from skipstone.table.logged_workload import logged_records, records_after, table_workload

ROWS = 2000
MIN_FILES = 100  # WorkloadLogCompaction.MinFiles
DAY_MS = 86_400_000


@pytest.fixture
def table(spark, tmp_path):
    """A fresh table with one real query logged (the record the synthetic ones copy)."""
    df = spark.range(ROWS).select((F.col("id") * 7919 % ROWS).alias("a"), (F.col("id") % 97).alias("b"))
    t = Skipstone.create(spark, str(tmp_path / "t"), df, layout=KdTree(block_rows=500, columns=["b"]))
    spark.sql(f"SELECT count(*) FROM parquet.`{t.root}` WHERE a < 100").collect()
    assert t.workload().count() == 1  # flushed
    (real,) = log_files(t)
    old = time.time() - 600  # old enough to compact, whatever the test's pace
    os.utime(os.path.join(log_dir(t), real), (old, old))
    yield t
    failpoints.disarm_all(spark)


def log_dir(t) -> str:
    return t.root.replace("file:", "") + "/_skipstone/workload"


def log_files(t) -> list[str]:
    return sorted(n for n in os.listdir(log_dir(t)) if n.endswith(".json"))


def template(t) -> dict:
    """A logged query's record (the first in the log that is not a compacted file's header)."""
    with open(os.path.join(log_dir(t), log_files(t)[0])) as f:
        return next(r for r in map(json.loads, f) if "compacted" not in r)


def write_bursts(t, rng: np.random.Generator, count: int, first_ms: int, age_s: float) -> int:
    """``count`` log files as the JVM writes them (a burst of 1-4 records each, times from
    ``first_ms`` on, some equal), modified ``age_s`` ago; returns the newest record's time."""
    record, at = template(t), first_ms
    for _ in range(count):
        records = []
        for _ in range(int(rng.integers(1, 5))):
            at += int(rng.integers(0, 2))
            bound = {"column": str(rng.choice(["a", "b"])), "op": "<", "value": int(rng.integers(1, ROWS))}
            records.append(dict(record, time=at, predicate=json.dumps(bound), read_share=float(rng.random())))
        path = os.path.join(log_dir(t), f"{at + 1}-{uuid.uuid4()}.json")
        with open(path, "w") as out:
            out.write("".join(json.dumps(r) + "\n" for r in records))
        when = time.time() - age_s
        os.utime(path, (when, when))
    return at


def workload_rows(t) -> list[tuple]:
    return sorted(tuple(r) for r in t.workload().collect())


def vacuum_kinds(t, **kwargs) -> list[str]:
    return [r.kind for r in t.vacuum(**kwargs).collect()]


def test_vacuum_merges_the_old_files_and_every_record_is_read_once_in_order(spark, table):
    t, rng = table, np.random.default_rng(5)
    now = int(time.time() * 1000)
    newest = write_bursts(t, rng, 150, now - 3_600_000, age_s=600)
    write_bursts(t, rng, 5, newest + 10, age_s=0)  # young: left as they are
    logged_workload.forget(t.root)
    kept = table_workload(spark, t.root, t.current().tree.schema)
    before, rows_before, files_before = logged_records(spark, t.root), workload_rows(t), log_files(t)
    assert len(files_before) == 156

    dry = vacuum_kinds(t, dry_run=True)
    assert dry.count("workload") == 151 and log_files(t) == files_before  # the old files; nothing changed

    deleted = t.vacuum().where("kind = 'workload'").collect()
    assert len(deleted) == 151
    after = log_files(t)
    assert after[0] == "0-compacted-00000000000000000001.json" and len(after) == 6
    assert logged_records(spark, t.root) == before  # same records, same order
    assert workload_rows(t) == rows_before

    # the incremental reader: its cursor no longer holds, so it reads the log whole once ...
    whole, records, cursor = records_after(spark, t.root, kept.cursor)
    assert whole and records == before
    again = table_workload(spark, t.root, t.current().tree.schema)
    assert again.records == kept.records
    # ... and from then on only what follows the compacted file
    write_bursts(t, rng, 3, int(time.time() * 1000) + 1000, age_s=0)
    whole, new, _ = records_after(spark, t.root, cursor)
    assert not whole and logged_records(spark, t.root) == before + new and len(new) >= 3


def test_a_second_compaction_takes_over_the_first(spark, table):
    t, rng = table, np.random.default_rng(6)
    now = int(time.time() * 1000)
    newest = write_bursts(t, rng, 120, now - 7_200_000, age_s=900)
    assert vacuum_kinds(t).count("workload") == 121
    write_bursts(t, rng, 110, newest + 5, age_s=300)
    before = logged_records(spark, t.root)
    assert vacuum_kinds(t).count("workload") == 110  # the compacted file is too young yet
    assert len(log_files(t)) == 2 and logged_records(spark, t.root) == before
    write_bursts(t, rng, 100, newest + 100_000, age_s=300)
    before = logged_records(spark, t.root)
    for name in log_files(t)[:2]:  # time passes
        os.utime(os.path.join(log_dir(t), name), (time.time() - 300, time.time() - 300))
    assert vacuum_kinds(t).count("workload") == 102  # the two compacted files and the new ones
    assert log_files(t) == ["0-compacted-00000000000000000003.json"]
    assert logged_records(spark, t.root) == before
    assert vacuum_kinds(t).count("workload") == 0  # one file: nothing to merge


def record_times(t) -> list[int]:
    """Every record's time in the log's files as they are (a compacted file's header left out)."""
    return sorted(json.loads(line)["time"] for name in log_files(t)
                  for line in open(os.path.join(log_dir(t), name)) if "compacted" not in json.loads(line))


def test_records_past_the_retention_are_dropped(spark, table):
    t, rng = table, np.random.default_rng(7)
    t.set_properties({"workloadLog.retentionDays": "2"})
    now = int(time.time() * 1000)
    write_bursts(t, rng, 3, now - 5 * DAY_MS, age_s=5 * 86400 - 60)  # from five days ago
    write_bursts(t, rng, 2, now - 3_600_000, age_s=3600)              # from an hour ago
    times, rows_before = record_times(t), workload_rows(t)
    recent = [x for x in times if x > now - 3 * DAY_MS]
    assert 3 <= len(times) - len(recent) and len(recent) >= 3
    # six old files, fewer than a compaction waits for, but three are past the retention
    assert vacuum_kinds(t).count("workload") == 6
    assert record_times(t) == recent
    assert len(workload_rows(t)) == len(recent) and set(workload_rows(t)) <= set(rows_before)


@pytest.mark.parametrize("point", ["workloadLog.compaction.beforePublish", "workloadLog.compaction.afterPublish"])
def test_a_compaction_killed_half_way_loses_and_repeats_nothing(spark, table, point):
    t, rng = table, np.random.default_rng(8)
    write_bursts(t, rng, 120, int(time.time() * 1000) - 3_600_000, age_s=600)
    before, rows_before = logged_records(spark, t.root), workload_rows(t)
    failpoints.arm(spark, point)
    with pytest.raises(SkipstoneError, match=f"failpoint {point}"):
        t.vacuum()
    published = point.endswith("afterPublish")
    assert ("0-compacted-00000000000000000001.json" in log_files(t)) == published
    assert len(log_files(t)) == 121 + published  # nothing deleted yet
    assert logged_records(spark, t.root) == before and workload_rows(t) == rows_before
    # the next vacuum finishes: deletes what the compacted file replaced, or compacts anew
    assert vacuum_kinds(t).count("workload") == 121
    assert log_files(t) == ["0-compacted-00000000000000000001.json"]
    assert logged_records(spark, t.root) == before and workload_rows(t) == rows_before


def test_a_compaction_that_loses_the_race_deletes_nothing(spark, table):
    t, rng = table, np.random.default_rng(9)
    write_bursts(t, rng, 120, int(time.time() * 1000) - 3_600_000, age_s=600)
    before = logged_records(spark, t.root)
    won = []
    # another vacuum compacts between this one's reading and its publishing the same generation
    failpoints.arm(spark, "workloadLog.compaction.beforePublish", action=lambda: won.append(vacuum_kinds(t)))
    lost = vacuum_kinds(t)
    assert won and won[0].count("workload") == 121
    assert lost.count("workload") == 0
    assert log_files(t) == ["0-compacted-00000000000000000001.json"]
    assert logged_records(spark, t.root) == before


def test_vacuums_racing_with_queries_logging_keep_every_record_once(spark, table):
    t, rng = table, np.random.default_rng(10)
    newest = int(time.time() * 1000) - 3_600_000
    for _ in range(3):
        for name in log_files(t):  # the files before, the last round's compacted one too, are old by now
            os.utime(os.path.join(log_dir(t), name), (time.time() - 300, time.time() - 300))
        newest = write_bursts(t, rng, 110, newest + 5, age_s=600)
        before, old = logged_records(spark, t.root), len(log_files(t))
        results: list = []
        threads = [threading.Thread(target=lambda: results.append(vacuum_kinds(t))) for _ in range(2)]
        for th in threads:
            th.start()
        for k in range(4):  # queries log records meanwhile, into new files
            spark.sql(f"SELECT count(*) FROM parquet.`{t.root}` WHERE b < {k + 1}").collect()
        for th in threads:
            th.join()
        assert len(results) == 2
        # the winner replaced them all; the other lost, found nothing, or deleted what the winner left
        assert max(r.count("workload") for r in results) == old
        after = logged_records(spark, t.root)
        assert after[:len(before)] == before and len(after) == len(before) + 4
        assert len([n for n in log_files(t) if n.startswith("0-compacted-")]) == 1


@pytest.mark.long  # over 9 s: make test-long runs it (CI after make test)
def test_past_the_driver_limit_a_spark_job_reads_the_log_without_replaced_files_or_headers(spark, table):
    t, rng = table, np.random.default_rng(11)
    newest = write_bursts(t, rng, 120, int(time.time() * 1000) - 3_600_000, age_s=600)
    failpoints.arm(spark, "workloadLog.compaction.afterPublish")
    with pytest.raises(SkipstoneError, match="failpoint"):
        t.vacuum()  # the compacted file published, the 121 files it replaces still there
    write_bursts(t, rng, 5_000, newest + 5, age_s=0)  # past the 5,000 files the driver reads itself
    compacted = "0-compacted-00000000000000000001.json"
    with open(os.path.join(log_dir(t), compacted)) as f:
        replaced = set(json.loads(f.readline())["compacted"]["replaces"])
    expected = sorted(r["predicate"] for name in log_files(t) if name not in replaced
                      for r in map(json.loads, open(os.path.join(log_dir(t), name))) if "compacted" not in r)
    logged_workload.forget(t.root)
    assert sorted(r.predicate for r in t.workload().collect()) == expected
    assert sorted(r.predicate for r in logged_records(spark, t.root)) == expected


def test_a_reader_that_listed_before_a_compaction_reads_the_compacted_file_instead(spark, table):
    t, rng = table, np.random.default_rng(12)
    write_bursts(t, rng, 120, int(time.time() * 1000) - 3_600_000, age_s=600)
    # the log's records in its order (time, file, line), read here: the JVM has not read (cached) these files
    lines = sorted((r["time"], name, i, (r["predicate"], r["version"], r.get("read_share"), r.get("files_read"),
                                         r.get("bytes_read"), r.get("duration_ms")))
                   for name in log_files(t) for i, r in enumerate(map(json.loads, open(os.path.join(log_dir(t), name)))))
    before = [record for *_, record in lines]
    compacted = []
    # between the reader's listing and its reading, a vacuum compacts and deletes what it listed
    failpoints.arm(spark, "workloadLog.read.afterListing", action=lambda: compacted.append(vacuum_kinds(t)))
    logged_workload.forget(t.root)
    assert logged_records(spark, t.root) == before
    assert compacted and compacted[0].count("workload") == 121
    assert log_files(t) == ["0-compacted-00000000000000000001.json"]
