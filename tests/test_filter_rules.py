"""Only what Spark itself would push down may prune: deterministic conjuncts before the first
non-deterministic one. Empty IN lists are FALSE, not NULL."""
from __future__ import annotations

import pytest

from conftest import run_both_ways
from datasets import write_clustered
from skipstone import MinMax, Skipstone, ValueList


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory) -> str:
    root = write_clustered(str(tmp_path_factory.mktemp("rules") / "events"), files=3)
    Skipstone.for_path(spark, root).build(MinMax("k"), ValueList("cat"))
    return root


def test_conjunct_after_rand_does_not_prune(spark, table):
    # rand(42) draws per row in file order: reading fewer files would change every draw.
    rows, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{table}` WHERE rand(42) < 0.5 AND k > 250")
    assert stats.files_skipped == 0


def test_conjunct_after_monotonically_increasing_id_does_not_prune(spark, table):
    rows, stats = run_both_ways(
        spark, f"SELECT k FROM parquet.`{table}` WHERE monotonically_increasing_id() < 205 AND k > 50")
    assert rows
    assert stats.files_skipped == 0


def test_conjunct_before_non_deterministic_one_still_prunes(spark, table):
    rows, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{table}` WHERE k > 250 AND rand(42) < 2")
    assert rows == [(k,) for k in range(251, 300)]
    assert stats.files_skipped == 2


def test_not_in_empty_list_is_true_for_every_row(spark, table):
    df = spark.read.parquet(table)
    from pyspark.sql import functions as F

    for make in (lambda: df.where(~F.col("k").isin([])), lambda: df.where(~F.col("cat").isin([]))):
        spark.conf.set("spark.skipstone.enabled", "false")
        expected = make().count()
        spark.conf.set("spark.skipstone.enabled", "true")
        assert make().count() == expected == 300


def test_in_empty_list_matches_nothing(spark, table):
    from pyspark.sql import functions as F

    assert spark.read.parquet(table).where(F.col("k").isin([]) | (F.col("k") == 5)).count() == 1
