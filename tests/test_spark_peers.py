"""Delta Lake and Iceberg as peers of the layout benchmark (docs/peers.md).

The session settings are checked here on the project's own Spark; the peers themselves need
their jars and a Spark they support (`make peer-jars`, `make bench-peers-smoke`): the smoke
test runs only where both are already in `.cache/`, never in CI.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.layout_spark import peer_runtime  # noqa: E402
from benchmarks.layout_spark.spark_peers import (DELTA_EXTENSION, ICEBERG_EXTENSION,  # noqa: E402
                                                 SKIPSTONE_EXTENSION, ScanRead, scan_read, session_configs)


def test_deltas_parser_sees_statements_first_so_optimize_on_a_delta_table_is_deltas():
    extensions = session_configs("/tmp/work", ["delta.jar"])["spark.sql.extensions"].split(",")
    assert extensions == [SKIPSTONE_EXTENSION, ICEBERG_EXTENSION, DELTA_EXTENSION]


def test_skipstone_configure_keeps_the_peers_extensions_in_their_order_and_adds_its_jar():
    import skipstone
    from pyspark.sql import SparkSession

    builder = SparkSession.builder
    for key, value in session_configs("/tmp/work", ["/jars/delta.jar", "/jars/iceberg.jar"]).items():
        builder = builder.config(key, value)
    options = skipstone.configure(builder)._options
    assert options["spark.sql.extensions"].split(",") == [SKIPSTONE_EXTENSION, ICEBERG_EXTENSION, DELTA_EXTENSION]
    assert options["spark.jars"].split(",") == ["/jars/delta.jar", "/jars/iceberg.jar", skipstone.jar_path()]


def test_iceberg_catalog_keeps_its_tables_under_the_work_directory():
    configs = session_configs("/tmp/work", [])
    assert configs["spark.sql.catalog.iceberg.type"] == "hadoop"
    assert configs["spark.sql.catalog.iceberg.warehouse"] == "/tmp/work/iceberg"


def test_liquid_clustering_may_order_on_the_six_columns_of_the_shifting_benchmark():
    from benchmarks.layout_spark.shifting_workload import PHASES

    limit = session_configs("/tmp/work", [])["spark.databricks.delta.clusteredTable.numClusteringColumnsLimit"]
    assert int(limit) >= len({c for pair in PHASES for c in pair})


def test_peer_jars_are_one_delta_and_one_iceberg_build_for_the_same_spark_minor():
    minor = peer_runtime.SPARK.rsplit(".", 1)[0]
    assert f"io.delta:delta-spark_{minor}_2.13:{peer_runtime.DELTA}" in peer_runtime.ARTIFACTS
    assert f"org.apache.iceberg:iceberg-spark-runtime-{minor}_2.13:{peer_runtime.ICEBERG}" in peer_runtime.ARTIFACTS


class _Seq:
    """What py4j hands back for a Scala Seq or Map: size/apply, contains/apply."""
    def __init__(self, items):
        self.items = items

    def size(self):
        return len(self.items)

    def apply(self, key):
        return self.items[key]

    def contains(self, key):
        return key in self.items


class _Metric:
    def __init__(self, value):
        self._value = value

    def value(self):
        return self._value


class _Node:
    """A py4j SparkPlan node: its class's simple name, metrics, children (or an inner plan)."""
    def __init__(self, kind, children=(), metrics=None, inner=None):
        self.kind, self._children, self._metrics, self.inner = kind, list(children), metrics or {}, inner

    def getClass(self):
        return self

    def getSimpleName(self):
        return self.kind

    def children(self):
        return _Seq(self._children)

    def metrics(self):
        return _Seq({k: _Metric(v) for k, v in self._metrics.items()})

    def executedPlan(self):
        return self.inner

    def plan(self):
        return self.inner


def test_files_and_bytes_read_are_summed_over_the_scans_inside_adaptive_query_stages():
    delta_scan = _Node("FileSourceScanExec", metrics={"numFiles": 3, "filesSize": 300})
    iceberg_scan = _Node("BatchScanExec", metrics={"resultDataFiles": 2, "totalDataFileSize": 50})
    stage = _Node("ShuffleQueryStageExec", inner=_Node("ShuffleExchangeExec", [iceberg_scan]))
    plan = _Node("AdaptiveSparkPlanExec", inner=_Node("HashAggregateExec", [_Node("UnionExec", [delta_scan, stage])]))
    assert scan_read(plan) == ScanRead(files=5, bytes=350)


def test_a_plan_with_no_known_scan_is_an_error_not_zero_files_read():
    with pytest.raises(ValueError, match="LocalTableScanExec"):
        scan_read(_Node("LocalTableScanExec"))


def _peers_ready() -> bool:
    jars = [os.path.join(peer_runtime.JARS_CACHE, peer_runtime._jar_name(a)) for a in peer_runtime.ARTIFACTS]
    venv = os.path.join(peer_runtime.SPARK_CACHE, f"venv-{peer_runtime.SPARK}", ".installed")
    return all(os.path.exists(p) for p in [*jars, venv])


@pytest.mark.skipif(not _peers_ready(), reason="needs .cache/peer-jars and .cache/peer-spark (make bench-peers-smoke)")
def test_every_peer_answers_as_plain_parquet_does():
    done = subprocess.run([sys.executable, "-m", "benchmarks.layout_spark.peer_runtime", "run",
                           "-m", "benchmarks.layout_spark.spark_peers", "--smoke", "--rows", "20000",
                           "--target-files", "8"], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "answers checked against plain Parquet's: 0 wrong" in done.stdout
