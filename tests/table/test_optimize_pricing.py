"""The built-in policies on a real managed table price what Spark pays: with the calibrated
defaults, a few queries on a small table never pay a rewrite job back, so optimize changes
nothing; priced without the job, the same workload is worth a rewrite, priced in the bytes per
row the table measured from its own files."""
from __future__ import annotations

import json

import pytest
from pyspark.sql import functions as F

from skipstone import Skipstone
from skipstone.layout import AmoebaAdaptive, KdTree, SparkCost
from tests.table.table_copies import copy_table
from tests.table.table_data import as_multiset

ROWS = 8000
QUERY = "SELECT count(*), sum(v) FROM parquet.`{root}` WHERE a < 1000"


@pytest.fixture(scope="module")
def source(spark):
    return spark.range(ROWS).select((F.col("id") * 7919 % ROWS).alias("a"), (F.col("id") % 97).alias("b"),
                                    F.col("id").alias("v"))


@pytest.fixture(scope="module")
def queried(spark, source, tmp_path_factory):
    """Laid out on b, then queried six times on a, which that layout cannot skip for."""
    t = Skipstone.create(spark, str(tmp_path_factory.mktemp("queried") / "t"), source,
                         layout=KdTree(block_rows=1000, columns=["b"]))
    for _ in range(6):
        spark.sql(QUERY.format(root=t.root)).collect()
    return t


def test_the_calibrated_policy_does_not_rewrite_what_its_window_cannot_pay_back(queried):
    assert queried.optimize(AmoebaAdaptive(window=100)) is None
    assert queried.version == 1 and [h.operation for h in queried.history().collect()] == ["CREATE"]


def test_without_a_job_cost_the_same_workload_pays_and_is_priced_in_the_tables_bytes(spark, source, queried, tmp_path):
    t = copy_table(spark, queried, tmp_path / "t")
    files = t.current().files
    bytes_per_row = sum(f.size for f in files) / sum(f.rows for f in files)
    result = t.optimize(AmoebaAdaptive(window=100, write_multiplier=1, cost_model=SparkCost(file_bytes=0, job_bytes=0)))
    assert result is not None and result.benefit > result.cost
    assert result.cost == pytest.approx(result.rows_rewritten * bytes_per_row)
    assert json.loads(t.history().collect()[-1].commit_info)["cost"] == pytest.approx(result.cost)
    assert as_multiset(spark.read.parquet(t.root)) == as_multiset(source)
