"""A managed table's files are written once and listed from its manifest, so skipping takes the
manifest's word for them (no file-system check per skipped file, which at a million files is
most of planning); `spark.skipstone.verifySkippedFiles=always` checks them like any dataset's."""
from __future__ import annotations

import os
from urllib.parse import urlparse

import pytest
from pyspark.sql import functions as F

import skipstone
from skipstone import Skipstone
from skipstone.layout import KdTree
from tests.table.table_copies import copy_table

ROWS = 2000
QUERY = "SELECT count(*) FROM parquet.`{root}` WHERE a < 200"


@pytest.fixture(scope="module")
def created(spark, tmp_path_factory):
    df = spark.range(ROWS).select(F.col("id").alias("a"), (F.col("id") % 7).alias("b"))
    return Skipstone.create(spark, str(tmp_path_factory.mktemp("immutable") / "t"), df,
                            layout=KdTree(block_rows=250, columns=["a"]))


@pytest.fixture
def table(spark, created, tmp_path):
    return copy_table(spark, created, tmp_path / "t")


@pytest.fixture
def verify_always(spark):
    spark.conf.set("spark.skipstone.verifySkippedFiles", "always")
    spark.conf.set("spark.sql.files.ignoreMissingFiles", "true")
    yield
    spark.conf.unset("spark.skipstone.verifySkippedFiles")
    spark.conf.unset("spark.sql.files.ignoreMissingFiles")


def a_file_with_no_match(spark, table) -> str:
    """The local path of a file every row of which has a >= 200 (the query skips it)."""
    v = table.current()
    for f in v.files:
        path = urlparse(v.absolute(f)).path
        if spark.read.parquet(path).where("a < 200").count() == 0:
            return path
    raise AssertionError("the layout put a row with a < 200 in every file")


def test_skipped_files_of_a_managed_table_are_not_checked_on_disk(spark, table):
    """Deleting a file the query skips shows it: no check finds it gone, and the answer stands."""
    os.remove(a_file_with_no_match(spark, table))
    assert spark.sql(QUERY.format(root=table.root)).collect()[0][0] == 200
    stats = skipstone.last_query_stats(spark)
    assert stats.files_skipped >= stats.files_total // 2
    assert sum(d.files_unindexed for d in stats.per_dataset) == 0


def test_always_checks_a_managed_tables_files_too(spark, table, verify_always):
    os.remove(a_file_with_no_match(spark, table))
    # The gone file cannot be confirmed unchanged, so it is not skipped (and Spark, told to
    # ignore missing files, reads nothing from it).
    assert spark.sql(QUERY.format(root=table.root)).collect()[0][0] == 200
    assert sum(d.files_unindexed for d in skipstone.last_query_stats(spark).per_dataset) == 1


def test_a_misspelt_setting_fails_the_query_naming_it(spark, table):
    spark.conf.set("spark.skipstone.verifySkippedFiles", "sometimes")
    try:
        with pytest.raises(Exception, match="spark.skipstone.verifySkippedFiles"):
            spark.sql(QUERY.format(root=table.root)).collect()
    finally:
        spark.conf.unset("spark.skipstone.verifySkippedFiles")
