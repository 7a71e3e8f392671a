"""Wrapping a relation keeps Spark's plan as good as without Skipstone: partition pruning and
size estimates (hence broadcast joins) stay, and the size reflects the files skipped."""
from __future__ import annotations

import pytest

from conftest import run_both_ways
from skipstone import MinMax, Skipstone

LONG_MAX = 2**63 - 1


@pytest.fixture(scope="module")
def facts(spark, tmp_path_factory) -> str:
    location = str(tmp_path_factory.mktemp("plans") / "facts")
    (spark.range(0, 4000).selectExpr("id AS k", "id % 4 AS p", "repeat('x', 200) AS pad")
     .repartition(16, "k").sortWithinPartitions("k")
     .write.partitionBy("p").option("path", location).saveAsTable("facts"))
    Skipstone.for_table(spark, "facts").build(MinMax("k"))
    spark.range(0, 4000).selectExpr("id AS k", "repeat('y', 500) AS label").write.saveAsTable("dims")
    yield "facts"
    spark.sql("DROP TABLE facts")
    spark.sql("DROP TABLE dims")


def plan_size(spark, sql: str) -> int:
    return int(str(spark.sql(sql)._jdf.queryExecution().optimizedPlan().stats().sizeInBytes()))


def both(spark, fn):
    spark.conf.set("spark.skipstone.enabled", "false")
    try:
        off = fn()
    finally:
        spark.conf.set("spark.skipstone.enabled", "true")
    return off, fn()


def test_partitioned_table_keeps_partition_pruning_and_its_size(spark, facts):
    sql = "SELECT * FROM facts WHERE p = 1 AND k < 100"
    off, on = both(spark, lambda: plan_size(spark, sql))
    assert on < LONG_MAX
    assert on <= off
    rows, stats = run_both_ways(spark, sql)
    assert len(rows) == 25
    assert stats.files_skipped > 0
    assert not any("p" in u.split() or "(p " in u for u in stats.per_dataset[0].unanswered)


def test_size_estimate_reflects_skipped_files(spark, facts):
    off, on = both(spark, lambda: plan_size(spark, "SELECT * FROM facts WHERE p = 1 AND k < 100"))
    assert on < off


def test_join_strategy_is_the_same_as_without_skipstone(spark, facts):
    sql = "SELECT f.k, d.label FROM facts f JOIN dims d ON f.k = d.k WHERE f.p = 2 AND f.k < 300"
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", str(64 * 1024))
    try:
        off, on = both(spark, lambda: spark.sql(sql)._jdf.queryExecution().executedPlan().toString())
        assert ("BroadcastHashJoin" in on) == ("BroadcastHashJoin" in off)
        assert "BroadcastHashJoin" in on
        rows, _ = run_both_ways(spark, sql)
        assert len(rows) == 75
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")
