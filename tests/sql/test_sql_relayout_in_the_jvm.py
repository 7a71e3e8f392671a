"""SQL's ``OPTIMIZE t LAYOUT <name> BY (...)`` for the layouts the JVM builds (AMOEBA, KD, RANGE,
ZORDER, HILBERT) runs in a session without Python: the table keeps its rows, records the spec
Python's class of that kind writes, routes every row to the block the layout assigns it, and
skips while answering as plain Spark does (docs/sql.md)."""
from __future__ import annotations

import json

import pytest
from pyspark.errors import IllegalArgumentException
from pyspark.sql import functions as F

import udfs  # noqa: F401 - before the SparkContext starts: Python workers (GeoBox's roles) import skipstone
from conftest import run_both_ways
from skipstone import GeoBox, Skipstone
from skipstone.layout import Amoeba, Hilbert, KdTree, Range, ZOrder
from skipstone.table.sql_optimize import SqlOptimizeHandler
from tests.table.table_copies import copy_table
from tests.table.table_data import MIXED_PREDICATES, as_multiset, encoded_rows_by_file, mixed_frame

ROWS = 3000
BLOCK_ROWS = 300
# (what follows LAYOUT, the spec the table must record, a query that reads less under it)
LAYOUTS = [
    ("AMOEBA", Amoeba(block_rows=BLOCK_ROWS), "i < -900"),
    ("AMOEBA BY (i, d)", Amoeba(block_rows=BLOCK_ROWS, columns=["i", "d"]), "d < DATE'2020-03-01'"),
    ("KD BY (x, s)", KdTree(block_rows=BLOCK_ROWS, columns=["x", "s"]), "s < 's030'"),
    ("RANGE BY (ts)", Range(block_rows=BLOCK_ROWS, columns=["ts"]), "ts < TIMESTAMP'2024-03-01 00:10:00'"),
    ("ZORDER BY (i, x, d, s)", ZOrder(block_rows=BLOCK_ROWS, columns=["i", "x", "d", "s"]), "i < -900"),
    ("HILBERT BY (D, i)", Hilbert(block_rows=BLOCK_ROWS, columns=["d", "i"]), "d < DATE'2020-03-01'"),
]
QUERIES = [*MIXED_PREDICATES, "ts >= TIMESTAMP'2024-03-01 02:00:00'"]


@pytest.fixture(scope="module")
def source(spark):
    return mixed_frame(spark, ROWS, seed=5)


@pytest.fixture(scope="module")
def created(spark, source, tmp_path_factory):
    return Skipstone.create(spark, str(tmp_path_factory.mktemp("jvm_relayout") / "t"), source,
                            layout=KdTree(block_rows=BLOCK_ROWS, columns=["l"]))


@pytest.fixture
def table(spark, created, tmp_path):
    return copy_table(spark, created, tmp_path / "t")


def optimize(spark, table, layout):
    [row] = spark.sql(f"OPTIMIZE parquet.`{table.root}` LAYOUT {layout}").collect()
    return row.metrics


@pytest.mark.parametrize("layout, spec, selective", LAYOUTS, ids=[lo for lo, _, _ in LAYOUTS])
def test_a_layout_the_jvm_builds_rewrites_the_table_without_python(spark, table, source, without_python,
                                                                   layout, spec, selective):
    old = {f.path for f in table.current().files}
    m = optimize(spark, table, layout)
    current = table.current()
    assert (m.version, m.strategy, m.rowsRewritten, m.numFilesRemoved) == (current.version, "layout", ROWS, len(old))
    assert not old & {f.path for f in current.files}
    assert json.loads(table.properties()["layout.spec"]) == json.loads(json.dumps(spec.to_json()))
    assert table.history().collect()[-1].policy == f"LAYOUT {layout.split()[0]}"
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(source)
    for predicate in QUERIES:
        run_both_ways(spark, f"SELECT * FROM parquet.`{table.root}` WHERE {predicate}", parquet_pushdown=False)
    _, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{table.root}` WHERE {selective}")
    assert stats.files_skipped > 0


@pytest.mark.parametrize("layout", ["KD BY (x, s)", "RANGE BY (ts)", "HILBERT BY (d, i)"])
def test_every_row_is_in_the_block_the_jvm_built_layout_routes_it_to(spark, table, without_python, layout):
    optimize(spark, table, layout)
    v = table.current()
    position = {int(b): p for p, b in enumerate(v.tree.block_ids)}
    by_file = encoded_rows_by_file(spark, [v.absolute(f) for f in v.files], v.tree)
    for f, spelled in zip(v.files, by_file):
        assert set(v.tree.route(by_file[spelled]).tolist()) == {position[f.block]}, f.path
    assert all(f.rows <= 2 * BLOCK_ROWS for f in v.files)


class RecordingOptimizer:
    """A Python optimizer that records what the JVM asks of it."""

    def __init__(self):
        self.calls = []

    def optimize(self, jsession, root, layout_json):
        self.calls.append(("optimize", layout_json))
        return json.dumps({"error": "not expected"})

    def layouts(self):
        self.calls.append(("layouts",))
        return json.dumps(["paw", "qdtree"])

    def roles(self, jsession, root):
        self.calls.append(("roles", root))
        return None

    class Java:
        implements = ["io.skipstone.table.PythonOptimizer"]


def test_a_pyspark_session_builds_the_jvm_s_layouts_without_asking_python(spark, table):
    recording = RecordingOptimizer()
    registry = spark._jvm.io.skipstone.table.PythonOptimizer
    registry.register(recording)
    try:
        assert optimize(spark, table, "ZORDER BY (i, d)").strategy == "layout"
    finally:
        registry.register(SqlOptimizeHandler())
    assert recording.calls == []


def test_without_python_a_layout_the_jvm_does_not_build_says_where_it_runs(spark, table, without_python):
    before = table.version
    with pytest.raises(IllegalArgumentException) as err:
        optimize(spark, table, "QDTREE")
    message = str(err.value)
    assert "the JVM builds AMOEBA, KD, RANGE, ZORDER, HILBERT" in message
    assert "this session has no Python driver" in message and f"skipstone optimize {table.root} --layout qdtree" in message
    assert table.version == before


@pytest.mark.parametrize("layout, message", [
    ("RANGE", "OPTIMIZE: LAYOUT RANGE needs BY (columns)"),
    ("RANGE BY (i, d)", "LAYOUT RANGE partitions by exactly one column"),
    ("KD BY (i, nope)", "LAYOUT KD BY (i, nope): no layout column 'nope'"),
])
def test_a_request_the_layout_cannot_take_is_named_without_python(spark, table, without_python, layout, message):
    before = table.version
    with pytest.raises(IllegalArgumentException, match=message.replace("(", r"\(").replace(")", r"\)")):
        optimize(spark, table, layout)
    assert table.version == before


def test_python_computes_only_the_roles_of_indexes_that_need_it(spark, tmp_path):
    points = spark.range(600).select((F.col("id") % 60).cast("double").alias("lat"),
                                     (F.col("id") / 10).cast("double").alias("lon"))
    table = Skipstone.create(spark, str(tmp_path / "geo"), points, layout=KdTree(block_rows=200, columns=["lat"]),
                             indexes=[GeoBox("lat", "lon", boxes=2)])
    registry = spark._jvm.io.skipstone.table.PythonOptimizer
    registry.unregister()
    try:
        with pytest.raises(IllegalArgumentException, match=r"GeoBox\(lat, lon, boxes=2\), computed by a Python function"):
            optimize(spark, table, "KD BY (lon)")  # the JVM alone refuses before writing anything
    finally:
        registry.register(SqlOptimizeHandler())
    assert table.version == 1
    assert optimize(spark, table, "KD BY (lon)").strategy == "layout"  # pyspark hands the JVM the boxes
    rows, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{table.root}` WHERE lat < 5 AND lon > 50")
    assert stats.per_dataset[0].files_unindexed == 0
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(points)
