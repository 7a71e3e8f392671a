"""``OPTIMIZE t LAYOUT AUTO`` and ``t.optimize(AutoColumns())``: the layout columns chosen from the
table's logged workload, the whole table rewritten over them, the choice in the history."""
from __future__ import annotations

import json

import pytest
from pyspark.errors import IllegalArgumentException
from pyspark.sql import functions as F

import udfs  # noqa: F401 - before the SparkContext starts: Python workers import skipstone
from conftest import run_both_ways
from skipstone.layout import AutoColumns, KdTree, RowsRead
from tests.table.table_copies import table_fixtures
from tests.table.table_data import as_multiset

ROWS = 4000


def rows(spark):
    """a and b independent of c, so a tree cut on c skips nothing for queries on a and b."""
    return spark.range(ROWS).select((F.col("id") * 7919 % ROWS).alias("a"), (F.col("id") * 104729 % 97).alias("b"),
                                    F.col("id").alias("c"))


created, table = table_fixtures("auto", rows,
                                KdTree(block_rows=250, columns=["c"]))


def query_on_a_and_b(spark, table, lo):
    return f"SELECT * FROM parquet.`{table.root}` WHERE a >= {lo} AND a < {lo + 300} AND b < 20"


def run_workload(spark, table, count=12):
    for k in range(count):
        spark.sql(query_on_a_and_b(spark, table, 250 * k)).collect()


def optimize_auto(spark, table):
    found = spark.sql(f"OPTIMIZE parquet.`{table.root}` LAYOUT AUTO").collect()
    assert len(found) == 1 and found[0].path == table.root
    return found[0].metrics


def test_layout_auto_without_a_logged_workload_names_the_table(spark, table):
    with pytest.raises(IllegalArgumentException, match=f"LAYOUT AUTO of {table.root}: the table has no logged workload yet"):
        optimize_auto(spark, table)


def test_layout_auto_takes_no_columns(spark, table):
    run_workload(spark, table, 2)
    with pytest.raises(IllegalArgumentException, match="LAYOUT AUTO of .* takes no BY"):
        spark.sql(f"OPTIMIZE parquet.`{table.root}` LAYOUT AUTO BY (a)").collect()


def test_layout_auto_lays_the_table_out_by_the_columns_its_queries_filter_on(spark, table):
    run_workload(spark, table)
    _, before = run_both_ways(spark, query_on_a_and_b(spark, table, 1000))
    m = optimize_auto(spark, table)
    assert (m.strategy, m.rowsRewritten) == ("layout", ROWS)
    assert m.reason.startswith("LAYOUT AUTO: layout columns (") and "predicted benefit" in m.reason
    last = table.history().collect()[-1]
    info = json.loads(last.commit_info)
    assert last.policy == "AutoColumns" and sorted(info["columns"]) == ["a", "b"]
    assert info["gain_per_query"] > 0 and info["predicted_benefit"] > 0 and info["builder"] in ("KdTree", "Amoeba")
    assert as_multiset(table.read()) == as_multiset(rows(spark))
    detail = table.detail().first()  # the table's spec is the chosen one: DESCRIBE DETAIL and INSERT OVERWRITE use it
    assert sorted(detail.layoutColumns) == ["a", "b"] and detail.layout == info["builder"]
    answers, after = run_both_ways(spark, query_on_a_and_b(spark, table, 1000))  # equal to plain Spark's
    assert len(answers) > 0 and after.files_skipped > before.files_skipped


def test_layout_auto_on_a_table_already_laid_out_by_its_workload_commits_nothing(spark, table):
    run_workload(spark, table)
    optimize_auto(spark, table)
    version = table.version
    m = optimize_auto(spark, table)
    assert m.version is None and table.version == version
    assert m.reason.startswith("nothing to optimize: LAYOUT AUTO kept the table's layout")


def test_auto_columns_from_python_commits_the_choice_when_the_gain_outweighs_the_rewrite(spark, table):
    run_workload(spark, table)
    assert table.optimize(AutoColumns(write_multiplier=1000, cost_model=RowsRead())) is None  # too dear
    result = table.optimize(AutoColumns(write_multiplier=0.5, cost_model=RowsRead()))
    assert result.strategy == "layout" and result.benefit > result.cost
    assert sorted(json.loads(table.history().collect()[-1].commit_info)["columns"]) == ["a", "b"]
    assert as_multiset(table.read()) == as_multiset(rows(spark))


@pytest.mark.parametrize("step", ["optimize.afterWrite", "optimize.afterMetadata", "optimize.afterCommit"])
def test_layout_auto_killed_at_each_step_loses_no_row_and_keeps_the_old_spec_or_the_new_whole(spark, table, step):
    from skipstone.table import failpoints
    from skipstone.table.failpoints import SimulatedCrash
    from skipstone.table.relayout import relayout

    run_workload(spark, table)
    version, spec = table.version, table.properties()["layout.spec"]
    failpoints.arm(spark, step)
    with pytest.raises(SimulatedCrash):
        relayout(spark, table.current(), "auto", [])
    committed = step.endswith("afterCommit")
    assert table.version == version + int(committed)
    assert as_multiset(table.read()) == as_multiset(rows(spark))
    if committed:
        assert sorted(json.loads(table.properties()["layout.spec"])["columns"]) == ["a", "b"]
    else:
        assert table.properties()["layout.spec"] == spec
        optimize_auto(spark, table)  # run again, it completes
        assert as_multiset(table.read()) == as_multiset(rows(spark))
    run_both_ways(spark, query_on_a_and_b(spark, table, 1000))  # answers equal to plain Spark's
