"""Crash safety by fault injection: an operation dies between each pair of its steps (no cleanup
runs, as after a kill); the table stays readable with exactly the right rows, and rerunning the
operation completes. Plus one real kill of a separate Python process half way through an append."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from skipstone import Skipstone
from skipstone.errors import SkipstoneError
from skipstone.layout import KdTree
from skipstone.table import failpoints, manifest
from skipstone.table.failpoints import SimulatedCrash
from tests.table.split_policy import SplitLargestBlock
from tests.table.table_copies import copy_table, local_path
from tests.table.table_data import as_multiset

ROWS = 1500
LAYOUT = KdTree(block_rows=500, columns=["a"])


def batch(spark, start, n):
    return spark.range(start, start + n).select(F.col("id").alias("a"), (F.col("id") % 7).alias("b"))


@pytest.fixture(scope="module")
def created(spark, tmp_path_factory):
    return Skipstone.create(spark, str(tmp_path_factory.mktemp("crash") / "t"), batch(spark, 0, ROWS), layout=LAYOUT)


@pytest.fixture
def table(spark, created, tmp_path):
    t = copy_table(spark, created, tmp_path / "t")
    yield t
    failpoints.disarm_all(spark)


def rows_of(spark, table):
    return as_multiset(spark.read.parquet(table.root))


@pytest.mark.parametrize("step", ["create.afterWrite", "create.afterMetadata"])
def test_create_dies_after(spark, step, tmp_path):
    path = str(tmp_path / "t")
    failpoints.arm(spark, step)
    with pytest.raises(SimulatedCrash):
        Skipstone.create(spark, path, batch(spark, 0, ROWS), layout=LAYOUT)
    assert manifest.latest(spark, "file:" + path) is None  # no version: nothing to read yet
    t = Skipstone.create(spark, path, batch(spark, 0, ROWS), layout=LAYOUT)  # rerun completes
    assert rows_of(spark, t) == as_multiset(batch(spark, 0, ROWS))
    leftovers = {r.kind for r in t.vacuum(retention_hours=0, force=True).collect()}
    assert "orphan" in leftovers  # the dead create's files, never read, are vacuumed
    assert rows_of(spark, t) == as_multiset(batch(spark, 0, ROWS))


@pytest.mark.parametrize("step", ["append.afterWrite", "append.afterMetadata", "append.afterCommit"])
def test_append_dies_after(spark, table, step):
    failpoints.arm(spark, step)
    with pytest.raises(SimulatedCrash):
        table.append(batch(spark, ROWS, 200))
    committed = step == "append.afterCommit"
    expected = batch(spark, 0, ROWS + (200 if committed else 0))
    assert rows_of(spark, table) == as_multiset(expected)
    if not committed:
        table.append(batch(spark, ROWS, 200))  # rerun completes
    assert rows_of(spark, table) == as_multiset(batch(spark, 0, ROWS + 200))
    table.vacuum(retention_hours=0, force=True)
    assert rows_of(spark, table) == as_multiset(batch(spark, 0, ROWS + 200))


@pytest.mark.parametrize("step", ["optimize.afterWrite", "optimize.afterMetadata", "optimize.afterCommit"])
def test_optimize_dies_after(spark, table, step):
    before = table.current().version
    failpoints.arm(spark, step)
    with pytest.raises(SimulatedCrash):
        table.optimize(SplitLargestBlock())
    assert table.current().version == before + (1 if step == "optimize.afterCommit" else 0)
    assert rows_of(spark, table) == as_multiset(batch(spark, 0, ROWS))
    assert table.optimize(SplitLargestBlock()) is not None  # rerun completes
    table.vacuum(retention_hours=0, force=True)
    assert rows_of(spark, table) == as_multiset(batch(spark, 0, ROWS))
    on_disk = {n for n in os.listdir(local_path(table.root)) if n.endswith(".parquet")}
    assert on_disk == {f.path for f in table.current().files}


@pytest.mark.parametrize("step", ["vacuum.afterIntent", "vacuum.halfDeleted", "vacuum.beforeIntentRemoved"])
def test_vacuum_dies_after(spark, table, step):
    table.optimize(SplitLargestBlock())
    table.optimize(SplitLargestBlock())
    failpoints.arm(spark, step)
    with pytest.raises(SkipstoneError, match=f"failpoint {step}"):
        table.vacuum(retention_hours=0, force=True)
    assert rows_of(spark, table) == as_multiset(batch(spark, 0, ROWS))
    table.vacuum(retention_hours=0, force=True)  # rerun completes the intent
    assert rows_of(spark, table) == as_multiset(batch(spark, 0, ROWS))
    on_disk = {n for n in os.listdir(local_path(table.root)) if n.endswith(".parquet")}
    assert on_disk == {f.path for f in table.current().files}
    assert not list((Path(local_path(table.root)) / "_skipstone" / "vacuum").glob("*.json"))


KILLED_APPEND = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    import skipstone
    from pyspark.sql import SparkSession, functions as F
    from skipstone import Skipstone
    spark = skipstone.configure(SparkSession.builder.master("local[1]")
                                .config("spark.ui.enabled", "false")).getOrCreate()
    t = Skipstone.for_path(spark, sys.argv[2])
    rows = spark.range(int(sys.argv[3]), int(sys.argv[3]) + 200).select(
        F.col("id").alias("a"), (F.col("id") % 7).alias("b"))
    print("appending", flush=True)
    t.append(rows)
    print("appended", flush=True)
""")


def test_a_process_killed_during_an_append_leaves_a_readable_table(spark, table, tmp_path):
    script = tmp_path / "append.py"
    script.write_text(KILLED_APPEND)
    python_dir = str(Path(__file__).resolve().parents[2] / "python")
    child = subprocess.Popen([sys.executable, str(script), python_dir, table.root, str(ROWS)],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "appending"
        staging = Path(local_path(table.root)) / "_skipstone" / "staging"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (staging.exists() and any(staging.iterdir())):
            time.sleep(0.05)
        time.sleep(0.5)  # into the append's Spark job
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    current = rows_of(spark, table)
    assert current in (as_multiset(batch(spark, 0, ROWS)), as_multiset(batch(spark, 0, ROWS + 200)))
    if len(current) == ROWS:
        table.append(batch(spark, ROWS, 200))  # rerun completes
    assert rows_of(spark, table) == as_multiset(batch(spark, 0, ROWS + 200))


def drop_foreign_file(spark, table, tmp_path, start, n):
    out = tmp_path / "foreign"
    batch(spark, start, n).coalesce(1).write.parquet(str(out))
    shutil.copy(next(out.glob("part-*.parquet")), os.path.join(local_path(table.root), "foreign.parquet"))


@pytest.mark.parametrize("step", ["optimize.unindexed.afterWrite", "optimize.unindexed.afterMetadata",
                                  "optimize.unindexed.afterCommit"])
def test_absorbing_unindexed_files_dies_after(spark, table, step, tmp_path):
    drop_foreign_file(spark, table, tmp_path, ROWS, 100)
    expected = as_multiset(batch(spark, 0, ROWS + 100))
    failpoints.arm(spark, step)
    with pytest.raises(SimulatedCrash):
        table.optimize()
    assert rows_of(spark, table) == expected  # the foreign rows exactly once, absorbed or not
    if step != "optimize.unindexed.afterCommit":
        assert table.optimize().strategy == "unindexed"  # rerun completes
    table.vacuum(retention_hours=0, force=True)
    assert rows_of(spark, table) == expected
    assert not os.path.exists(os.path.join(local_path(table.root), "foreign.parquet"))


@pytest.mark.parametrize("step", ["optimize.compaction.afterWrite", "optimize.compaction.afterMetadata",
                                  "optimize.compaction.afterCommit"])
def test_compaction_dies_after(spark, table, step):
    table.set_properties({"optimize.strategies": "compaction"})
    table.append(batch(spark, ROWS, 200))
    expected = as_multiset(batch(spark, 0, ROWS + 200))
    failpoints.arm(spark, step)
    with pytest.raises(SimulatedCrash):
        table.optimize()
    assert rows_of(spark, table) == expected
    if step != "optimize.compaction.afterCommit":
        assert table.optimize().strategy == "compaction"  # rerun completes
    assert table.optimize() is None  # nothing fragmented is left
    table.vacuum(retention_hours=0, force=True)
    assert rows_of(spark, table) == expected


@pytest.mark.parametrize("step", ["overwrite.afterWrite", "overwrite.afterMetadata", "overwrite.afterCommit"])
def test_overwrite_dies_after(spark, table, step):
    """INSERT OVERWRITE / mode("overwrite") killed between its steps: the old rows or the new, never a mix."""
    failpoints.arm(spark, step)
    with pytest.raises(Exception, match="failpoint"):
        batch(spark, 5000, 300).write.format("skipstone").mode("overwrite").save(table.root)
    committed = step == "overwrite.afterCommit"
    expected = batch(spark, 5000, 300) if committed else batch(spark, 0, ROWS)
    assert rows_of(spark, table) == as_multiset(expected)
    if not committed:
        batch(spark, 5000, 300).write.format("skipstone").mode("overwrite").save(table.root)  # rerun completes
    table.vacuum(retention_hours=0, force=True)
    assert rows_of(spark, table) == as_multiset(batch(spark, 5000, 300))
