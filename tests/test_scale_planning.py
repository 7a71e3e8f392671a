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


@pytest.fixture(scope="module")
def many_files(spark, tmp_path_factory):
    """Synthetic metadata of 40,000 files (file i holds k = 1000 i .. 1000 i + 999): enough
    for the listing to be pruned in parallel chunks."""
    from benchmarks.scale_metadata import publish, setup_dataset

    ds = setup_dataset(spark, str(tmp_path_factory.mktemp("many")))
    publish(spark, ds, 40_000)
    return ds.root


@pytest.mark.parametrize("shuffle_seed", [-1, 7])
def test_pruning_a_large_listing_keeps_exactly_the_files_that_may_match(spark, many_files, shuffle_seed):
    """In the version's order (each chunk guesses the next position) and shuffled (every
    guess misses, the path table answers), the kept files are exactly the ones whose k range
    meets the predicate."""
    lo, hi = 12_345_678, 12_845_999  # files 12,345 .. 12,845
    df = spark.read.parquet(many_files).where(f"k BETWEEN {lo} AND {hi}")
    kept = spark._jvm.io.skipstone.query.PlanningBenchmark.keptFiles(
        spark._jsparkSession, many_files, df._jdf, shuffle_seed)
    ids = sorted(int(p.rsplit("/part-", 1)[1].split("-")[0]) for p in kept)
    assert ids == list(range(lo // 1000, hi // 1000 + 1))
