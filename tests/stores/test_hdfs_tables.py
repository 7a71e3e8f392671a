"""The managed-table suite (tests/stores/table_suite.py) on HDFS: a MiniDFSCluster in a JVM of its
own (tests/stores/hdfs_cluster.py), started for this module and stopped after it, every table at
an `hdfs://` URI. `make test-hdfs` fetches the cluster's jar and runs this module; without the
jar, or outside that target, the module is skipped (docs/hdfs.md)."""
from __future__ import annotations

import os
import uuid

import pytest

from conftest import run_both_ways
from stores import hdfs_cluster
from stores.table_suite import *  # noqa: F401,F403 - the suite's tests and fixtures
from stores.table_suite import expected_rows, new_table, rows_of
from tests.table.table_data import unindexed


@pytest.fixture(scope="module")
def hdfs_uri(tmp_path_factory):
    # only where a store target asks for it: `make test` must not start a cluster for minutes
    # because an earlier `make test-hdfs` left the jar in the cache
    if not os.environ.get("SKIPSTONE_HDFS_JARS"):
        pytest.skip("the HDFS tests run under `make test-hdfs` (or with SKIPSTONE_HDFS_JARS set)")
    jars = hdfs_cluster.classpath(hdfs_cluster.cache_dir())
    if jars is None:
        pytest.skip(f"the HDFS tests need {hdfs_cluster.minicluster_jar(hdfs_cluster.cache_dir())}: "
                    "`make test-hdfs` fetches it from Maven Central")
    with hdfs_cluster.MiniDfs(tmp_path_factory.mktemp("minidfs"), jars) as cluster:
        yield cluster.uri


@pytest.fixture(scope="module")
def store_root(spark, hdfs_uri):
    base = f"{hdfs_uri}/skipstone/{uuid.uuid4().hex}"
    yield lambda name: f"{base}/{uuid.uuid4().hex[:8]}/{name}"
    # queries' workload records go to the tables' containers in the background: written before
    # the cluster stops, so that no writer is left retrying a cluster that is gone
    spark._jvm.io.skipstone.table.Tables.flushWorkload(spark._jsparkSession)


def test_the_tables_live_on_hdfs(spark, store_root):
    """The suite's roots are HDFS paths, served by the cluster, not a local directory."""
    root = store_root("where")
    assert root.startswith("hdfs://")
    spark.range(3).write.parquet(root)
    fs = spark._jvm.org.apache.hadoop.fs.Path(root).getFileSystem(spark._jsparkSession.sessionState().newHadoopConf())
    assert fs.getScheme() == "hdfs" and fs.getClass().getName() == "org.apache.hadoop.hdfs.DistributedFileSystem"


def test_a_version_is_published_by_an_atomic_rename_that_refuses_an_existing_name(spark, store_root):
    """PutIfAbsent's rename on HDFS (FileContext.rename with Options.Rename.NONE) refuses a name
    that exists, and leaves the winner's content: the property every commit relies on."""
    target = f"{store_root('rename')}/{1:020d}.json"
    jvm, conf = spark._jvm, spark._jsparkSession.sessionState().newHadoopConf()
    put = jvm.io.skipstone.table.PutIfAbsent.write
    assert put(conf, jvm.org.apache.hadoop.fs.Path(target), "first")
    assert not put(conf, jvm.org.apache.hadoop.fs.Path(target), "second")
    path = jvm.org.apache.hadoop.fs.Path(target)
    stream = path.getFileSystem(conf).open(path)
    try:
        assert bytes(stream.readAllBytes()).decode() == "first"
    finally:
        stream.close()


def test_a_root_spelled_with_another_address_of_the_namenode_reads_the_same_rows(spark, store_root):
    """Skipping metadata names files by absolute URI: under another spelling of the NameNode's
    address the files are unknown to it, and unknown means read (every row, never a wrong answer)."""
    t = new_table(spark, store_root, "spelled", rows=600)
    host = "127.0.0.1" if "//127.0.0.1:" in t.root else "localhost"
    other = t.root.replace(f"//{host}:", f"//{'localhost' if host == '127.0.0.1' else '127.0.0.1'}:", 1)
    assert other != t.root
    assert rows_of(spark, other) == expected_rows(spark, (0, 600))
    rows, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{other}` WHERE a < 100")
    assert len(rows) == 100
    assert stats.files_skipped == 0 and unindexed(stats) == len(t.current().files)
