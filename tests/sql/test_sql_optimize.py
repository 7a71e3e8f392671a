"""SQL's OPTIMIZE on real managed tables: absorbing other writers' files and compaction run in the
JVM (the code Python's ``t.optimize()`` calls), layouts and policies run in Python when the
session's driver is Python, and a session without Python runs what the JVM runs and then names
what needs Python (docs/sql.md)."""
from __future__ import annotations

import json
import os
import shutil

import pytest
from pyspark.errors import IllegalArgumentException
from pyspark.sql import functions as F

import udfs  # noqa: F401 - before the SparkContext starts: Python workers (GeoBox's roles) import skipstone
from conftest import run_both_ways
from skipstone import GeoBox, Skipstone
from skipstone.layout import KdTree
from skipstone.table import failpoints
from skipstone.table.failpoints import SimulatedCrash
from skipstone.table.relayout import relayout
from tests.table.table_copies import local_path, table_fixtures
from tests.table.table_data import as_multiset, batch

ROWS = 1500


created, table = table_fixtures("sqlopt", lambda spark: batch(spark, 0, ROWS),
                                KdTree(block_rows=500, columns=["a"]))


def fragment(spark, table):
    """Two appends: blocks hold more files than their rows need."""
    table.append(batch(spark, 0, 300))
    table.append(batch(spark, 600, 300))
    return as_multiset(batch(spark, 0, ROWS).union(batch(spark, 0, 300)).union(batch(spark, 600, 300)))


def optimize(spark, table, layout=""):
    rows = spark.sql(f"OPTIMIZE parquet.`{table.root}` {layout}").collect()
    assert len(rows) == 1 and rows[0].path == table.root
    return rows[0].metrics


def test_optimize_compacts_a_fragmented_table_and_returns_what_it_committed(spark, table):
    table.set_properties({"optimize.strategies": "compaction"})
    expected = fragment(spark, table)
    before = table.current()
    m = optimize(spark, table)
    after, last = table.current(), table.history().collect()[-1]
    assert (m.version, m.strategy, m.numFilesAdded, m.numFilesRemoved, m.rowsRewritten, m.bytesRead) == \
        (after.version, "compaction", last.files_added, last.files_removed, last.rows_rewritten, last.bytes_read)
    new = [f for f in after.files if f.path not in {g.path for g in before.files}]
    assert m.bytesAdded == sum(f.size for f in new) and len(after.files) < len(before.files)
    assert all(f.path.startswith(f"b{f.block}-part-") for f in new)  # named as Python's writer names them
    assert as_multiset(spark.read.parquet(table.root)) == expected
    run_both_ways(spark, f"SELECT * FROM parquet.`{table.root}` WHERE a BETWEEN 100 AND 300")


def test_optimize_with_nothing_to_do_returns_a_row_without_a_version(spark, table):
    table.set_properties({"optimize.strategies": "compaction"})
    before = table.version
    m = optimize(spark, table)
    assert (m.version, m.strategy, m.numFilesAdded) == (None, None, 0) and "nothing to optimize" in m.reason
    assert table.version == before


def test_layout_zorder_rewrites_every_file_under_the_curve(spark, table):
    old = {f.path for f in table.current().files}
    m = optimize(spark, table, "LAYOUT ZORDER BY (a, b)")
    current = table.current()
    assert (m.strategy, m.rowsRewritten, m.numFilesRemoved) == ("layout", ROWS, len(old))
    assert not old & {f.path for f in current.files}
    assert (current.layout["kind"], current.layout["columns"]) == ("curve", ["a", "b"])
    assert json.loads(table.properties()["layout.spec"])["kind"] == "ZOrder"
    assert table.history().collect()[-1].policy == "LAYOUT ZORDER"
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(batch(spark, 0, ROWS))


def test_layout_kd_by_a_column_makes_queries_on_it_skip(spark, table):
    _, before = run_both_ways(spark, f"SELECT * FROM parquet.`{table.root}` WHERE b = 6")
    optimize(spark, table, "LAYOUT KD BY (b)")
    rows, after = run_both_ways(spark, f"SELECT * FROM parquet.`{table.root}` WHERE b = 6")
    assert len(rows) == ROWS // 7 and before.files_skipped == 0 < after.files_skipped


@pytest.mark.parametrize("layout", ["PAW", "QDTREE"])
def test_workload_layouts_are_built_from_the_logged_queries(spark, table, layout):
    with pytest.raises(IllegalArgumentException, match=f"LAYOUT {layout} of .*logged workload"):
        optimize(spark, table, f"LAYOUT {layout}")
    for lo in (100, 400, 900):
        spark.sql(f"SELECT count(*) FROM parquet.`{table.root}` WHERE a >= {lo} AND a < {lo + 50}").collect()
    m = optimize(spark, table, f"LAYOUT {layout}")
    assert m.strategy == "layout" and table.current().layout["kind"] != "curve"
    rows, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{table.root}` WHERE a >= 400 AND a < 450")
    assert len(rows) == 50 and stats.files_skipped > 0


def test_a_layout_column_the_table_lacks_is_named(spark, table):
    before = table.version
    with pytest.raises(IllegalArgumentException, match=r"LAYOUT KD BY \(c\): no layout column 'c' \(the table's: a, b\)"):
        optimize(spark, table, "LAYOUT KD BY (c)")
    assert table.version == before


@pytest.mark.parametrize("step", ["optimize.relayout.afterWrite", "optimize.relayout.afterMetadata",
                                  "optimize.relayout.afterCommit"])
def test_a_rewrite_under_a_layout_that_dies_leaves_the_table_readable(spark, table, step):
    expected = as_multiset(batch(spark, 0, ROWS))
    before = table.version
    failpoints.arm(spark, step)
    with pytest.raises(SimulatedCrash):
        relayout(spark, table.current(), "kd", ["b"])
    assert table.version == before + (1 if step.endswith("afterCommit") else 0)
    assert as_multiset(spark.read.parquet(table.root)) == expected
    if not step.endswith("afterCommit"):
        optimize(spark, table, "LAYOUT KD BY (b)")  # rerun completes
    table.vacuum(retention_hours=0, force=True)
    assert as_multiset(spark.read.parquet(table.root)) == expected
    on_disk = {n for n in os.listdir(local_path(table.root)) if n.endswith(".parquet")}
    assert on_disk == {f.path for f in table.current().files}


def test_without_python_compaction_runs_then_what_needs_python_is_named(spark, table, without_python):
    expected = fragment(spark, table)
    before = table.version
    with pytest.raises(IllegalArgumentException) as err:
        optimize(spark, table)
    message = str(err.value)
    assert f"committed version {before + 1} (compaction: " in message
    assert "not run, as this session has no Python driver: layout (" in message
    assert f"skipstone optimize {table.root} (docs/cli.md)" in message
    assert f"ALTER TABLE parquet.`{table.root}` SET TBLPROPERTIES ('optimize.strategies' = 'compaction')" in message
    assert table.history().collect()[-1].strategy == "compaction"
    assert as_multiset(spark.read.parquet(table.root)) == expected
    table.set_properties({"optimize.strategies": "compaction"})
    assert optimize(spark, table).version is None  # only what SQL runs: nothing left, no error


def test_without_python_other_writers_files_are_absorbed_by_the_jvm(spark, table, tmp_path, without_python):
    out = tmp_path / "foreign"
    batch(spark, 5000, 10).coalesce(1).write.parquet(str(out))
    shutil.copy(next(out.glob("part-*.parquet")), os.path.join(local_path(table.root), "foreign.parquet"))
    table.set_properties({"optimize.strategies": "unindexed,compaction"})
    m = optimize(spark, table)
    assert (m.version, m.strategy, m.rowsRewritten) == (table.version, "unindexed", 10)
    assert table.current().operation == "OPTIMIZE" and table.history().collect()[-1].strategy == "unindexed"
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(batch(spark, 0, ROWS).union(batch(spark, 5000, 10)))
    run_both_ways(spark, f"SELECT * FROM parquet.`{table.root}` WHERE a >= 5000")


def test_without_python_a_layout_built_in_python_names_the_cli_command(spark, table, without_python):
    with pytest.raises(IllegalArgumentException, match=f"skipstone optimize {table.root} --layout paw"):
        optimize(spark, table, "LAYOUT PAW")


def test_python_roles_of_a_geobox_are_computed_for_compacted_files(spark, tmp_path, without_python):
    points = spark.range(600).select((F.col("id") % 60).cast("double").alias("lat"),
                                     (F.col("id") / 10).cast("double").alias("lon"))
    table = Skipstone.create(spark, str(tmp_path / "geo"), points, layout=KdTree(block_rows=200, columns=["lat"]),
                             indexes=[GeoBox("lat", "lon", boxes=2)])
    table.set_properties({"optimize.strategies": "compaction"})
    table.append(points.limit(200))
    table.append(points.limit(200))
    files = {f.path for f in table.current().files}
    with pytest.raises(IllegalArgumentException, match=r"GeoBox\(lat, lon, boxes=2\), computed by a Python function"):
        optimize(spark, table)  # the JVM alone refuses before writing anything
    assert {f.path for f in table.current().files} == files
    result = table.optimize()  # Python hands the JVM's compaction the boxes of the new files
    assert result is not None and result.strategy == "compaction"
    rows, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{table.root}` WHERE lat < 5 AND lon > 50")
    assert stats.per_dataset[0].files_unindexed == 0
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(points.union(points.limit(200)).union(points.limit(200)))
