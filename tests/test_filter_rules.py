"""A filter with anything non-deterministic does not prune, so rand() and
monotonically_increasing_id() see the same rows. Empty IN lists are FALSE, not NULL."""
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


def test_conjunct_before_non_deterministic_one_does_not_prune_either(spark, table):
    # Spark would push `k > 250`, but dropping files renumbers the scan's partitions, which
    # seed rand(): the rows sampled would differ with skipping on.
    rows, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{table}` WHERE k > 250 AND rand(42) < 0.5", False)
    assert stats.files_skipped == 0


def test_files_of_only_nulls_are_kept_when_rand_follows_an_inferred_not_null(spark, tmp_path):
    # Spark puts its inferred `isnotnull(k)` first; skipping the all-NULL file on it would
    # shift every later file to another partition and another rand() sequence.
    import pyarrow as pa
    from datasets import write_tables

    files = [pa.table({"k": pa.array([None] * 5, pa.int32())})] + [
        pa.table({"k": pa.array(list(range(10 * i, 10 * i + 10)), pa.int32())}) for i in range(1, 4)]
    root = write_tables(str(tmp_path / "nulls"), files)
    Skipstone.for_path(spark, root).build(MinMax("k"))
    rows, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{root}` WHERE randn(65) > -0.5 AND 1 <> k", False)
    assert stats.files_skipped == 0


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
