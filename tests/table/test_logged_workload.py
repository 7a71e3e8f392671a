"""The driver reads a table's workload log after what it read before (``logged_workload``), and what
it gets is what reading the whole log gives: the same records in the same order, the same
queries and patterns, the same decision; a log compacted, rewritten or joined by a record from
the past is read whole again."""
from __future__ import annotations

import json
import os
import time
import uuid

import numpy as np
import pytest
from pyspark.sql import functions as F

from skipstone import Skipstone
from skipstone.layout import AutoColumns, KdTree, RowsRead
from skipstone.layout.bounded.patterns import workload_patterns
from skipstone.table import logged_workload
from skipstone.table.logged_workload import logged_records, records_after, table_workload
from skipstone.table.optimize import plan

ROWS = 4000


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    """A table laid out on b, with one real query logged (the record the synthetic ones copy)."""
    df = spark.range(ROWS).select((F.col("id") * 7919 % ROWS).alias("a"), (F.col("id") % 97).alias("b"),
                                  (F.col("id") * 31 % ROWS).alias("c"))
    t = Skipstone.create(spark, str(tmp_path_factory.mktemp("logged") / "t"), df,
                         layout=KdTree(block_rows=500, columns=["b"]))
    spark.sql(f"SELECT count(*) FROM parquet.`{t.root}` WHERE a < 100").collect()
    assert t.workload().count() == 1  # flushed
    return t


def log_dir(t) -> str:
    return t.root.replace("file:", "") + "/_skipstone/workload"


def template_record(t) -> dict:
    name = min(n for n in os.listdir(log_dir(t)) if n.endswith(".json") and not n.startswith("."))
    with open(os.path.join(log_dir(t), name)) as f:
        return json.loads(f.readline())


def write_burst(t, records: list[dict], millis: int) -> str:
    """One log file as the JVM's writer makes it: ``<millis>-<uuid>.json``, a record per line."""
    name = f"{millis}-{uuid.uuid4()}.json"
    with open(os.path.join(log_dir(t), name), "w") as out:
        out.write("".join(json.dumps(r) + "\n" for r in records))
    return name


def query_record(template: dict, rng: np.random.Generator, time: int, columns: str) -> dict:
    bounds = [{"column": c, "op": "<", "value": int(rng.integers(1, ROWS))} for c in columns]
    predicate = bounds[0] if len(bounds) == 1 else {"and": bounds}
    return dict(template, time=time, predicate=json.dumps(predicate), read_share=float(rng.random()))


def same_workload(kept, whole) -> None:
    assert kept.records == whole.records
    assert list(kept.queries) == list(whole.queries) and kept.versions == whole.versions
    for window in (10, 100):
        assert workload_patterns(kept.queries, window, 0.1) == workload_patterns(list(whole.queries), window, 0.1)


def test_reading_after_the_last_read_gives_what_reading_the_whole_log_gives(spark, table):
    t = table
    base = t.current()
    schema = base.tree.schema
    template = template_record(t)
    rng = np.random.default_rng(23)
    logged_workload.forget(t.root)
    kept = table_workload(spark, t.root, schema)
    named, newest, phase, read_whole = 0, 0, "a", 0
    for burst in range(60):  # random appends: bursts of 0-6 records, some as old as the newest before
        if rng.random() < 0.1:
            phase = str(rng.choice(["a", "b", "c", "ab", "bc"]))
        start = max(newest + int(rng.integers(0, 2)), int(time.time() * 1000) if rng.random() < 0.7 else 0)
        times = [start + k // 3 for k in range(int(rng.integers(0, 7)))]
        named = max(named + 1, start)
        write_burst(t, [query_record(template, rng, at, phase) for at in times], named)
        newest = max([newest] + times)
        if burst % 5 == 0:
            spark.sql(f"SELECT count(*) FROM parquet.`{t.root}` WHERE c > {burst}").collect()  # a real one too
        read_whole += records_after(spark, t.root, kept.cursor)[0]  # flushes the real one's file
        kept = table_workload(spark, t.root, schema)
        if burst % 5 == 0:  # written by now: what follows is named and timed after it
            named = newest = int(time.time() * 1000)
        whole = logged_workload.TableWorkload.of(t.root, "", logged_records(spark, t.root), schema)
        same_workload(kept, whole)
    assert read_whole == 0  # each read was of the new records only
    assert len(kept.records) > 150
    policy = AutoColumns(window=30, cost_model=RowsRead(), write_multiplier=0.01)
    decided = plan(spark, base, None, policy)  # kept, then whole
    logged_workload.forget(t.root)
    again = plan(spark, base, None, policy)
    assert decided is not None and again is not None
    assert (decided.change.description, decided.change.benefit) == (again.change.description, again.change.benefit)


def test_a_compacted_log_is_read_whole_and_nothing_is_read_twice(spark, table):
    t = table
    schema = t.current().tree.schema
    table_workload(spark, t.root, schema)  # what was logged so far is kept
    _, _, cursor = records_after(spark, t.root, "")
    files = sorted(n for n in os.listdir(log_dir(t)) if n.endswith(".json") and not n.startswith("."))
    lines = []
    for name in files:  # compact: every file's lines into one, named after the first
        with open(os.path.join(log_dir(t), name)) as f:
            lines += f.read().splitlines()
        os.remove(os.path.join(log_dir(t), name))
        if os.path.exists(os.path.join(log_dir(t), f".{name}.crc")):
            os.remove(os.path.join(log_dir(t), f".{name}.crc"))
    with open(os.path.join(log_dir(t), files[0]), "w") as out:
        out.write("\n".join(lines) + "\n")
    whole, records, _ = records_after(spark, t.root, cursor)
    assert whole and records == logged_records(spark, t.root)
    kept = table_workload(spark, t.root, schema)
    same_workload(kept, logged_workload.TableWorkload.of(t.root, "", logged_records(spark, t.root), schema))


def test_a_record_older_than_the_last_read_makes_the_read_whole(spark, table):
    t = table
    template = template_record(t)
    _, before, cursor = records_after(spark, t.root, "")
    late = dict(template, time=int(template["time"]) - 1000)  # another application's, written late
    write_burst(t, [late], 99_999_999_999_999)  # named after every file, so only its time says it is late
    whole, records, _ = records_after(spark, t.root, cursor)
    assert whole and records == logged_records(spark, t.root) and len(records) == len(before) + 1
    assert records[0][0] == late["predicate"]  # oldest first, where the whole log puts it


def test_a_removed_log_file_makes_the_read_whole(spark, table):
    t = table
    _, before, cursor = records_after(spark, t.root, "")
    oldest = min(n for n in os.listdir(log_dir(t)) if n.endswith(".json") and not n.startswith("."))
    os.remove(os.path.join(log_dir(t), oldest))
    whole, records, _ = records_after(spark, t.root, cursor)
    assert whole and records == logged_records(spark, t.root) and len(records) < len(before)
    again, nothing, _ = records_after(spark, t.root, records_after(spark, t.root, "")[2])
    assert not again and nothing == []  # nothing new since: an empty read
