"""A managed table's version is listed from its manifest once: later queries on the same cached
version share those file statuses (building them costs about 4 s at a million files), and a
commit starts from the new version's files."""
from __future__ import annotations

import pytest
from pyspark.sql import functions as F

import skipstone
from skipstone import MinMax, Skipstone, SkipstoneError
from skipstone.layout import KdTree
from tests.table.table_data import unindexed


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


# Roots and file names a user or another tool may give: Hadoop escapes, and normalizes, some of them.
ODD_ROOTS = ["file:/tmp/a b", "/tmp/x%25y", "file:/tmp/ünï", "/tmp/c+d=e", "file:///tmp/three/slashes", "/tmp/trailing/"]
NAMES = ["b1-part-00000-0f1e.c000.snappy.parquet", "sub/dir/f.parquet", ".hidden=1.parquet",  # plain
         "a b.parquet", "x%y.parquet", "./f.parquet", "a//b.parquet", "d/../e.parquet", "ü.parquet", "c:d.parquet"]


@pytest.mark.parametrize("root", ODD_ROOTS)
def test_a_manifest_status_is_spelled_and_located_as_a_listing_of_its_path_would_be(spark, root):
    jvm = spark._jvm
    builder = getattr(jvm.io.skipstone.table, "ManifestStatus$Builder")(root, 1 << 20)
    for name in NAMES:
        status = builder.apply(name, 123, 1_700_000_000_000)
        path = jvm.org.apache.hadoop.fs.Path(root + "/" + name)
        assert status.canonicalPath() == jvm.io.skipstone.metadata.FilePaths.canonical(path.toUri()), (root, name)
        # Serialized before anything asked for its path, it arrives as a plain status with one.
        sent = jvm.java.io.ByteArrayOutputStream()
        jvm.java.io.ObjectOutputStream(sent).writeObject(status)
        received = jvm.java.io.ObjectInputStream(jvm.java.io.ByteArrayInputStream(sent.toByteArray())).readObject()
        assert received.getPath().equals(path) and received.getLen() == 123, (root, name)
        assert status.getPath().equals(path) and path.toString() in status.toString()


def test_a_table_under_an_odd_root_skips_and_answers_as_plain_spark(spark, tmp_path):
    """Skipping finds each manifest file's metadata by its precomputed spelling: were it wrong,
    every file would count as unindexed (read, not skipped)."""
    root = str(tmp_path / "odd+root=ü.x")
    df = spark.range(2000).select(F.col("id").alias("a"), (F.col("id") % 7).alias("b"))
    t = Skipstone.create(spark, root, df, layout=KdTree(block_rows=250, columns=["a"]))
    for predicate in ("a < 300", "a BETWEEN 1000 AND 1100 AND b = 3", "a > 5000"):
        actual = sorted(spark.sql(f"SELECT * FROM parquet.`{t.root}` WHERE {predicate}").collect())
        stats = skipstone.last_query_stats(spark)
        assert actual == sorted(df.where(predicate).collect()), predicate
        assert stats.files_total == len(t.current().files) and stats.files_skipped >= stats.files_total // 2, predicate
        assert unindexed(stats) == 0, predicate


@pytest.mark.parametrize("name", ["with space", "percent%41", "hash#1"])
def test_a_root_that_needs_escaping_is_refused_by_name_and_nothing_is_written(spark, tmp_path, name):
    """Skipstone would build its own paths under such a root wrongly (Hadoop escapes the escapes
    again); it refuses, and queries on the data still read every file."""
    df = spark.range(100).select(F.col("id").alias("a"))
    with pytest.raises(SkipstoneError, match=f"cannot index or create a table under .*{name}.*need escaping"):
        Skipstone.create(spark, str(tmp_path / name / "t"), df, layout=KdTree(block_rows=25, columns=["a"]))
    plain = tmp_path / name / "plain"
    df.write.parquet(str(plain))
    with pytest.raises(SkipstoneError, match=f"cannot index or create a table under .*{name}.*need escaping"):
        Skipstone.for_path(spark, str(plain)).build(MinMax("a"))
    assert spark.sql(f"SELECT count(*) FROM parquet.`{plain}` WHERE a < 10").first()[0] == 10
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]            # no sibling spelled with escapes
    assert sorted(p.name for p in (tmp_path / name).iterdir()) == ["plain"]


@pytest.mark.parametrize("central", [False, True])
def test_a_dataframe_read_from_an_escaped_root_is_refused_by_name_and_still_answers(spark, tmp_path, central):
    """Building reads the dataset again from its root's spelling, so the refusal holds with a
    central metadata root too (the build would read a sibling directory that does not exist)."""
    root = tmp_path / "with space"
    df = spark.range(400).select(F.col("id").alias("a"))
    df.write.parquet(str(root))
    if central:
        spark.conf.set("spark.skipstone.metadataRoot", str(tmp_path / "central"))
    try:
        data = spark.read.parquet(str(root))
        with pytest.raises(SkipstoneError, match="cannot index or create a table under .*with space.*need escaping"):
            Skipstone.for_dataframe(data)
        assert data.where("a < 10").count() == 10
    finally:
        spark.conf.unset("spark.skipstone.metadataRoot")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["with space"]
