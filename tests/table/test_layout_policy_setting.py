"""A table names the policy of its ``layout`` strategy (``optimize.layoutPolicy``) and the budget
of a bounded step (``optimize.layoutBudgetBytes``): ``t.optimize()``, SQL's ``OPTIMIZE`` and the
automatic optimize after an append then adapt the table by it without being handed a policy."""
from __future__ import annotations

import json

import pytest
from pyspark.sql import functions as F

from conftest import run_both_ways
from skipstone.errors import SkipstoneError
from skipstone.layout import KdTree
from tests.table.table_copies import table_fixtures
from tests.table.table_data import as_multiset

ROWS = 4000
# rewrites priced nearly free, so that a dozen queries on a small table pay one back
CHEAP = {"cost.writeMultiplier": "0.001", "cost.jobBytes": "0", "cost.fileBytes": "0"}


def rows(spark):
    """a and b independent of c, so a tree cut on c skips nothing for queries on a and b."""
    return spark.range(ROWS).select((F.col("id") * 7919 % ROWS).alias("a"), (F.col("id") * 104729 % 97).alias("b"),
                                    F.col("id").alias("c"))


created, table = table_fixtures("policy", rows, KdTree(block_rows=250, columns=["c"]))


def query(table, lo):
    return f"SELECT * FROM parquet.`{table.root}` WHERE a >= {lo} AND a < {lo + 300} AND b < 20"


def run_workload(spark, table, count=12):
    for k in range(count):
        spark.sql(query(table, 250 * k)).collect()


def optimize(spark, table, how):
    if how == "python":
        return table.optimize()
    return spark.sql(f"OPTIMIZE parquet.`{table.root}`").collect()


@pytest.mark.parametrize("how", ["python", "sql"])
def test_optimize_without_a_policy_uses_the_one_the_table_names(spark, table, how):
    table.set_properties({"optimize.layoutPolicy": "auto", "optimize.strategies": "layout", **CHEAP})
    run_workload(spark, table)
    _, before = run_both_ways(spark, query(table, 1000))
    optimize(spark, table, how)
    last = table.history().collect()[-1]
    info = json.loads(last.commit_info)
    assert last.policy == "AutoColumns" and sorted(info["columns"]) == ["a", "b"]
    assert as_multiset(table.read()) == as_multiset(rows(spark))
    answers, after = run_both_ways(spark, query(table, 1000))  # equal to plain Spark's
    assert len(answers) > 0 and after.files_skipped > before.files_skipped


def test_the_default_is_amoebas_adaptive_policy(spark, table):
    assert table.properties()["optimize.layoutPolicy"] == "adaptive"
    table.set_properties({"optimize.strategies": "layout", **CHEAP})
    run_workload(spark, table)
    version = table.version
    table.optimize()
    policies = {r.policy for r in table.history().collect() if r.version > version}
    assert policies <= {"AmoebaAdaptive"}  # it may find nothing to do; it never runs another policy
    from skipstone.table import settings
    from skipstone.table.driver import default_policy
    assert default_policy(settings.read(spark, table.properties(), table.root)).name == "AmoebaAdaptive"


def test_a_bounded_step_rewrites_within_the_budget_the_table_stores(spark, table):
    total = sum(f.size for f in table.current().files)
    budget = total // 2
    table.set_properties({"optimize.layoutPolicy": "bounded", "optimize.layoutBudgetBytes": str(budget),
                          "optimize.strategies": "layout", **CHEAP})
    run_workload(spark, table, 30)
    version = table.version
    results = table.optimize_continuously(max_iterations=3)
    steps = [r for r in table.history().collect() if r.version > version]
    assert len(steps) == len(results) >= 1
    for step in steps:
        info = json.loads(step.commit_info)
        assert step.policy == "BoundedRewrite" and info["budget_bytes"] == budget
        assert info["rewritten_bytes"] <= budget
    assert as_multiset(table.read()) == as_multiset(rows(spark))


@pytest.mark.parametrize("key, value, allowed", [
    ("optimize.layoutPolicy", "zorder", "one of adaptive, auto, bounded, bounded-auto"),
    ("optimize.layoutBudgetBytes", "0", "a whole number >= 1"),
])
def test_a_bad_policy_or_budget_is_refused_naming_the_key(spark, table, key, value, allowed):
    version = table.version
    with pytest.raises(SkipstoneError, match=f"{key}.*{allowed}"):
        table.set_properties({key: value})
    assert table.version == version
