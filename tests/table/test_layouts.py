"""Every layout spec on real Spark: Z-order, Hilbert, Qd-tree and PAW tables hold the input's
rows, answer as plain Spark does, route each row to the block the layout assigns it, and keep
their files within the size bounds."""
from __future__ import annotations

import numpy as np
import pytest

from skipstone import ManagedTable, Skipstone
from skipstone.layout import Hilbert, Paw, QdTree, ZOrder
from skipstone.layout.curves import hilbert_keys, zorder_keys
from tests.conftest import normalized
from tests.table.table_data import MIXED_PREDICATES, as_multiset, encoded_rows_by_file, mixed_frame

ROWS = 4000
BLOCK_ROWS = 400
WORKLOAD = [
    {"column": "i", "op": "<", "value": -500},
    {"column": "d", "op": "<", "value": "2020-06-01"},
    {"and": [{"column": "x", "op": ">", "value": 50.0}, {"column": "s", "op": ">", "value": "s200"}]},
    {"column": "i", "op": "<", "value": -450},
]
SPECS = {
    "zorder": ZOrder(block_rows=BLOCK_ROWS, columns=["i", "x", "d", "s"]),
    "hilbert": Hilbert(block_rows=BLOCK_ROWS, columns=["i", "x", "d", "s"]),
    "qdtree": QdTree(block_rows=BLOCK_ROWS, queries=WORKLOAD),
    "paw": Paw(block_rows=BLOCK_ROWS, queries=WORKLOAD),
}


@pytest.fixture(scope="module")
def source(spark):
    return mixed_frame(spark, ROWS, seed=3)


@pytest.fixture(scope="module")
def plain(spark, source, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("plain") / "data")
    source.write.parquet(path)
    return path


@pytest.fixture(scope="module", params=sorted(SPECS))
def table(request, spark, source, tmp_path_factory) -> ManagedTable:
    path = tmp_path_factory.mktemp(request.param) / "t"
    return Skipstone.create(spark, str(path), source, layout=SPECS[request.param])


def test_the_table_holds_exactly_the_input_rows(spark, table, source):
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(source)


def test_answers_equal_plain_spark_on_the_original_data(spark, table, plain):
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")  # footers omit NaN: the reference must not prune
    try:
        for predicate in MIXED_PREDICATES:
            expected = normalized(spark.sql(f"SELECT * FROM parquet.`{plain}` WHERE {predicate}").collect())
            actual = normalized(spark.sql(f"SELECT * FROM parquet.`{table.root}` WHERE {predicate}").collect())
            assert actual == expected, predicate
    finally:
        spark.conf.set("spark.sql.parquet.filterPushdown", "true")


def test_every_row_is_in_the_block_the_layout_routes_it_to(spark, table):
    """The executors' routing (the JVM's CASE trees, curve keys) agrees with the layout package's own."""
    v = table.current()
    layout = v.tree
    position = {int(b): p for p, b in enumerate(layout.block_ids)}
    by_file = encoded_rows_by_file(spark, [v.absolute(f) for f in v.files], layout)
    for f, spelled in zip(v.files, by_file):
        assert set(layout.route(by_file[spelled]).tolist()) == {position[f.block]}, f.path


def test_files_are_within_the_size_bounds(table):
    files = table.current().files
    assert sum(f.rows for f in files) == ROWS
    assert all(f.rows <= 2 * BLOCK_ROWS for f in files)
    assert min(f.rows for f in files) >= BLOCK_ROWS // 2  # blocks are sized on a sample
    assert len(files) >= ROWS // (2 * BLOCK_ROWS)


def test_the_curve_keys_the_jvm_routes_by_are_those_of_the_layout_package(spark):
    codes = np.random.default_rng(1).integers(0, 1 << 5, size=(300, 3)).astype(np.uint64)
    keys = spark._jvm.io.skipstone.layout.CurveKeys
    gateway = spark.sparkContext._gateway

    def jvm_codes(row: np.ndarray) -> object:
        array = gateway.new_array(gateway.jvm.long, len(row))
        for i, c in enumerate(row):
            array[i] = int(c)
        return array

    rows = [jvm_codes(row) for row in codes]
    assert [keys.hilbert(r, 5) for r in rows] == hilbert_keys(codes, 5).tolist()
    assert [keys.zorder(r, 5) for r in rows] == zorder_keys(codes, 5).tolist()
