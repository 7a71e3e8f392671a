"""Planning starts no Spark job (issue 12): loading a metadata version inside the optimizer
reads its Parquet table on the driver, and a warm query only evaluates clauses."""
from __future__ import annotations

import pyarrow as pa
import pytest

from datasets import write_tables
from skipstone import MinMax, Skipstone


@pytest.fixture(scope="module")
def view(spark, tmp_path_factory) -> str:
    tables = [pa.table({"k": pa.array([10 * i + j for j in range(5)], pa.int64())}) for i in range(4)]
    root = write_tables(str(tmp_path_factory.mktemp("planning") / "p"), tables)
    Skipstone.for_path(spark, root).build(MinMax("k"))
    spark.read.parquet(root).createOrReplaceTempView("p")
    return "p"


def jobs_while_optimizing(spark, sql: str) -> int:
    df = spark.sql(sql)  # analysis (Parquet schema inference may run a job) happens here, outside
    return spark._jvm.io.skipstone.query.JobCounter.duringOptimization(df._jdf)


def test_cold_planning_loads_metadata_without_a_job(spark, view):
    spark._jvm.io.skipstone.Skipstone.clearCache()
    assert jobs_while_optimizing(spark, f"SELECT * FROM {view} WHERE k = 21") == 0


def test_warm_planning_starts_no_job(spark, view):
    spark.sql(f"SELECT * FROM {view} WHERE k = 21").collect()
    assert jobs_while_optimizing(spark, f"SELECT * FROM {view} WHERE k BETWEEN 5 AND 12") == 0


def test_job_counter_sees_a_job(spark, view):
    """The counter itself works: a query run inside what it watches is counted."""
    counter = spark._jvm.io.skipstone.query.JobCounter
    df = spark.sql(f"SELECT count(*) FROM {view}")
    assert counter.duringExecution(df._jdf) >= 1
