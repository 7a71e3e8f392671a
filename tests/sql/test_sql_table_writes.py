"""Managed tables written the ways Spark users write tables (docs/sql.md#writing-tables): the
``skipstone`` source (``df.write.format("skipstone")``, ``spark.read.format("skipstone")``),
``CREATE TABLE ... USING skipstone [LAYOUT ...] AS SELECT``, ``INSERT INTO`` and
``INSERT OVERWRITE``. Each write is one version of the log, routed by the layout and indexed."""
from __future__ import annotations

import pytest
from pyspark.errors import AnalysisException, IllegalArgumentException
from pyspark.sql import functions as F

from skipstone import Skipstone
from tests.table.table_data import as_multiset

ROWS = 1200


def batch(spark, start, n):
    return spark.range(start, start + n).select(F.col("id").alias("a"), (F.col("id") % 7).alias("b"),
                                                F.concat(F.lit("s"), (F.col("id") % 13).cast("string")).alias("s"))


def operations(spark, root):
    return [r.operation for r in spark.sql(f"DESCRIBE HISTORY parquet.`{root}`").orderBy("version").collect()]


def test_format_skipstone_creates_appends_and_reads(spark, tmp_path):
    root = str(tmp_path / "t")
    batch(spark, 0, ROWS).write.format("skipstone").option("layout", "kd").option("columns", "a,b") \
        .option("blockRows", 300).save(root)
    assert spark._jvm.io.skipstone.table.Tables.isManaged(spark._jsparkSession, "file:" + root)
    t = Skipstone.for_path(spark, root)
    assert len(t.current().files) >= 4  # routed into blocks of about 300 rows
    batch(spark, ROWS, 100).write.format("skipstone").mode("append").save(root)
    assert operations(spark, root) == ["CREATE", "APPEND"]
    read = spark.read.format("skipstone").load(root)
    assert as_multiset(read) == as_multiset(batch(spark, 0, ROWS + 100))
    first = spark.read.format("skipstone").option("versionAsOf", 1).load(root)
    assert as_multiset(first) == as_multiset(batch(spark, 0, ROWS))
    # skipping on the new source's reads too
    assert read.where("a = 5").count() == 1


def test_format_skipstone_save_modes(spark, tmp_path):
    root = str(tmp_path / "t")
    batch(spark, 0, 200).write.format("skipstone").option("blockRows", 100).save(root)
    with pytest.raises(Exception, match="already a Skipstone table"):
        batch(spark, 0, 10).write.format("skipstone").save(root)
    batch(spark, 0, 10).write.format("skipstone").mode("ignore").save(root)
    assert operations(spark, root) == ["CREATE"]
    batch(spark, 500, 50).write.format("skipstone").mode("overwrite").save(root)
    assert as_multiset(spark.read.format("skipstone").load(root)) == as_multiset(batch(spark, 500, 50))
    assert len(operations(spark, root)) == 2
    # the version before the overwrite is still there to read
    assert spark.read.format("skipstone").option("versionAsOf", 1).load(root).count() == 200


def test_format_skipstone_refuses_unknown_options_and_layouts(spark, tmp_path):
    root = str(tmp_path / "t")
    with pytest.raises(Exception, match="unknown option 'blocksize'"):
        batch(spark, 0, 10).write.format("skipstone").option("blockSize", 5).save(root)
    with pytest.raises(Exception, match="unknown LAYOUT OCTREE"):
        batch(spark, 0, 10).write.format("skipstone").option("layout", "octree").save(root)
    with pytest.raises(Exception, match="(?i)layout column 'nope'"):
        batch(spark, 0, 10).write.format("skipstone").option("columns", "a,nope").save(root)
    with pytest.raises(Exception, match="blockRows must be a positive whole number"):
        batch(spark, 0, 10).write.format("skipstone").option("blockRows", "-3").save(root)
    assert not (tmp_path / "t" / "_skipstone" / "log").exists()  # nothing committed


def test_create_table_using_skipstone_layout_as_select(spark, tmp_path):
    batch(spark, 0, ROWS).createOrReplaceTempView("raw_rows")
    location = str(tmp_path / "events")
    spark.sql(f"CREATE TABLE events_by_layout USING skipstone LAYOUT KD BY (a, b) OPTIONS (blockRows 300) "
              f"LOCATION '{location}' AS SELECT * FROM raw_rows")
    try:
        assert as_multiset(spark.table("events_by_layout")) == as_multiset(batch(spark, 0, ROWS))
        spec = spark.sql(f"DESCRIBE DETAIL parquet.`{location}`").first()
        assert spec is not None
        spark.sql("INSERT INTO events_by_layout VALUES (5000, 1, 'x'), (5001, 2, 'y')")
        assert operations(spark, location) == ["CREATE", "APPEND"]
        assert spark.sql("SELECT count(*) FROM events_by_layout WHERE a >= 5000").first()[0] == 2
        assert spark.sql("SELECT count(*) FROM events_by_layout VERSION AS OF 1").first()[0] == ROWS
        spark.sql("INSERT OVERWRITE events_by_layout SELECT * FROM raw_rows WHERE a < 10")
        assert spark.table("events_by_layout").count() == 10
        assert len(operations(spark, location)) == 3
    finally:
        spark.sql("DROP TABLE IF EXISTS events_by_layout")


def test_create_table_without_location_is_a_catalog_managed_table(spark):
    batch(spark, 0, 300).createOrReplaceTempView("raw_small")
    spark.sql("CREATE TABLE small_events USING skipstone AS SELECT * FROM raw_small")
    try:
        assert spark.table("small_events").count() == 300
        spark.sql("INSERT INTO small_events SELECT * FROM raw_small WHERE a < 5")
        assert spark.table("small_events").count() == 305
    finally:
        spark.sql("DROP TABLE IF EXISTS small_events")


def test_insert_into_root_by_path_commits_a_version(spark, tmp_path):
    root = str(tmp_path / "t")
    batch(spark, 0, 300).write.format("skipstone").option("blockRows", 100).save(root)
    spark.sql(f"INSERT INTO parquet.`{root}` SELECT a + 1000, b, s FROM parquet.`{root}` WHERE a < 20")
    assert operations(spark, root) == ["CREATE", "APPEND"]
    assert spark.read.parquet(root).count() == 320
    # no file outside the log: nothing for the unindexed strategy to absorb
    assert spark._jvm.io.skipstone.table.Tables.unindexed(spark._jsparkSession, "file:" + root).count() == 0


def test_insert_with_wrong_columns_is_refused_by_spark_and_commits_nothing(spark, tmp_path):
    root = str(tmp_path / "t")
    batch(spark, 0, 50).write.format("skipstone").save(root)
    with pytest.raises(AnalysisException):
        spark.sql(f"INSERT INTO parquet.`{root}` SELECT 1")
    assert operations(spark, root) == ["CREATE"]
