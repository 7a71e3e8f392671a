"""Metadata that does not match its definition is not used: the query reads the files, warns
once per version, and never starts a Spark job while planning."""
from __future__ import annotations

import glob
import os
import shutil

import pytest

import skipstone
from conftest import metadata_table_dir, run_both_ways
from datasets import write_clustered
from skipstone import MinMax, Skipstone


@pytest.fixture()
def table(spark, tmp_path) -> str:
    root = write_clustered(str(tmp_path / "events"), files=3)
    Skipstone.for_path(spark, root).build(MinMax("k"), MinMax("s"))
    return root


def metadata_file(spark, root: str) -> str:
    (found,) = glob.glob(os.path.join(metadata_table_dir(spark, root).removeprefix("file:"), "*.parquet"))
    return found


def test_index_whose_metadata_columns_have_the_wrong_type_is_not_used(spark, table):
    path = metadata_file(spark, table)
    table_dir = os.path.dirname(path)
    # min/max of k rewritten as strings by another writer: compared as text, '99' > '250'.
    from pyspark.sql import functions as F

    rewritten = (spark.read.parquet(table_dir)
                 .withColumn("minmax_0_min", F.col("minmax_0_min").cast("string"))
                 .withColumn("minmax_0_max", F.col("minmax_0_max").cast("string")))
    staged = table_dir + "-rewritten"
    rewritten.write.parquet(staged)
    shutil.rmtree(table_dir)
    os.rename(staged, table_dir)
    rows, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{table}` WHERE k >= 250")
    assert len(rows) == 50
    assert stats.files_skipped == 0
    # the other index of the same version is still used
    rows, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{table}` WHERE s = 's02-001'")
    assert stats.files_skipped == 2


def test_corrupt_metadata_starts_no_job_during_planning_and_reads_everything(spark, table):
    with open(metadata_file(spark, table), "wb") as f:
        f.write(b"PAR1 this is not a parquet file PAR1")
    df = spark.sql(f"SELECT k FROM parquet.`{table}` WHERE k >= 250")
    tracker = spark.sparkContext.statusTracker()
    jobs_before = set(tracker.getJobIdsForGroup(None))
    df._jdf.queryExecution().executedPlan()  # planning only
    df._jdf.queryExecution().executedPlan()
    assert set(tracker.getJobIdsForGroup(None)) == jobs_before
    rows, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{table}` WHERE k >= 250")
    assert len(rows) == 50
    assert stats.files_skipped == 0
