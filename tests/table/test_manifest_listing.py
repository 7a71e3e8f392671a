"""A managed table's version is listed from its manifest once: later queries on the same cached
version share those file statuses (building them costs about 4 s at a million files), and a
commit starts from the new version's files."""
from __future__ import annotations

from pyspark.sql import functions as F

from skipstone import Skipstone
from skipstone.layout import KdTree


def jvm_listing(spark, root: str):
    """The cached snapshot of `root` and the statuses a query on it lists."""
    jvm = spark._jvm
    snapshot = jvm.io.skipstone.table.ManagedTables.resolve(spark._jsparkSession, root).get()._1()
    return snapshot, jvm.io.skipstone.table.ManifestFileIndex.indexedStatuses(root, snapshot)


def identity(spark, obj) -> int:
    return spark._jvm.java.lang.System.identityHashCode(obj)


def test_queries_on_one_version_share_its_listing_and_a_commit_lists_the_new_files(spark, tmp_path):
    df = spark.range(1000).select(F.col("id").alias("a"))
    t = Skipstone.create(spark, str(tmp_path / "t"), df, layout=KdTree(block_rows=250, columns=["a"]))
    query = f"SELECT count(*) FROM parquet.`{t.root}` WHERE a < 100"
    assert spark.sql(query).first()[0] == 100
    snapshot, first = jvm_listing(spark, t.root)
    assert spark.sql(query).first()[0] == 100
    _, again = jvm_listing(spark, t.root)
    assert identity(spark, first) == identity(spark, again)
    listed = sorted(first.apply(i).getPath().getName() for i in range(first.size()))
    assert listed == sorted(f.path.rsplit("/", 1)[-1] for f in t.current().files)

    t.append(spark.range(1000, 1100).select(F.col("id").alias("a")))
    assert spark.sql(f"SELECT count(*) FROM parquet.`{t.root}` WHERE a >= 1000").first()[0] == 100
    newer, after = jvm_listing(spark, t.root)
    assert newer.version() == snapshot.version() + 1
    assert after.size() == len(t.current().files) > first.size()
