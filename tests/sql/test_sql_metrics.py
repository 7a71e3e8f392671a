"""What each indexed scan skipped is visible where Spark shows a scan's work: SQL metrics of the
plan (the SQL tab of Spark's UI reads them from its status store) and a line in EXPLAIN and
``df.explain()``; the numbers are those of ``skipstone.last_query_stats``."""
from __future__ import annotations

from typing import Any

import pytest

import skipstone
from conftest import run_both_ways
from skipstone import MinMax, Skipstone
from tests.datasets import write_clustered

METRICS = ("filesTotal", "filesSkipped", "bytesTotal", "bytesSkipped")


@pytest.fixture(scope="module")
def events(spark, tmp_path_factory) -> str:
    """Ten files, k clustered (file i holds 100i..100i+99), indexed by MinMax(k)."""
    root = write_clustered(str(tmp_path_factory.mktemp("metrics") / "events"))
    Skipstone.for_path(spark, root).build(MinMax("k"))
    return Skipstone.for_path(spark, root).root


def skipstone_nodes(plan: Any) -> list[Any]:
    """The Skipstone nodes of an executed plan, through adaptive plans and query stages."""
    found = []

    def visit(node: Any) -> None:
        name = node.getClass().getSimpleName()
        if name == "SkippingScanExec":
            found.append(node)
        if name == "AdaptiveSparkPlanExec":
            visit(node.executedPlan())
        elif name.endswith("QueryStageExec"):
            visit(node.plan())
        children = node.children()
        for i in range(children.size()):
            visit(children.apply(i))

    visit(plan)
    return found


def plan_metrics(node: Any) -> dict[str, int]:
    metrics = node.metrics()
    return {name: int(metrics.apply(name).value()) for name in METRICS}


def expected(stats: skipstone.DatasetStats) -> dict[str, int]:
    return {"filesTotal": stats.files_total, "filesSkipped": stats.files_skipped, "bytesTotal": stats.bytes_total,
            "bytesSkipped": stats.bytes_skipped}


def status_store_values(spark, node: Any) -> dict[str, int]:
    """The node's metrics as the SQL tab shows them: the status store's values of the last
    execution that reported them."""
    spark._jvm.io.skipstone.table.Tables.flushWorkload(spark._jsparkSession)  # the listener bus has caught up
    ids = {name: node.metrics().apply(name).id() for name in METRICS}
    store = spark._jsparkSession.sharedState().statusStore()
    executions = store.executionsList()
    for i in reversed(range(executions.size())):
        values = store.executionMetrics(executions.apply(i).executionId())
        if values.contains(ids["filesSkipped"]):
            return {name: int(values.apply(i_d).replace(",", "")) for name, i_d in ids.items()}
    raise AssertionError("no execution reported the Skipstone node's metrics")


@pytest.mark.parametrize("sql", [
    "SELECT * FROM parquet.`{root}` WHERE k < 150",                      # a scan alone: no adaptive plan
    "SELECT cat, count(*) FROM parquet.`{root}` WHERE k >= 720 GROUP BY cat",  # an adaptive plan with stages
])
def test_each_scan_reports_what_it_skipped_as_sql_metrics(spark, events, sql):
    df = spark.sql(sql.format(root=events))
    df.collect()
    stats = skipstone.last_query_stats(spark).per_dataset[0]
    [node] = skipstone_nodes(df._jdf.queryExecution().executedPlan())
    assert plan_metrics(node) == expected(stats) and stats.files_skipped > 0
    assert status_store_values(spark, node) == expected(stats)


def test_two_scans_of_a_join_report_their_own_numbers(spark, events):
    df = spark.sql(f"SELECT a.k, b.k FROM parquet.`{events}` a JOIN parquet.`{events}` b ON a.k = b.k - 1 "
                   "WHERE a.k < 150 AND b.k < 350")
    df.collect()
    reported = sorted(tuple(plan_metrics(n).values()) for n in skipstone_nodes(df._jdf.queryExecution().executedPlan()))
    assert reported == sorted(tuple(expected(d).values()) for d in skipstone.last_query_stats(spark).per_dataset)
    assert [r[1] for r in reported] == [6, 8]


def test_df_explain_shows_what_each_scan_skips_before_the_query_runs(spark, events, capsys):
    spark.sql(f"SELECT count(*) FROM parquet.`{events}` WHERE k < 150").explain()
    shown = capsys.readouterr().out
    assert f"Skipstone {events}: skipped 8 of 10 files (" in shown and "MinMax(k): 8" in shown


def test_explain_shows_it_in_the_plan_and_in_its_section(spark, events):
    plan = spark.sql(f"EXPLAIN SELECT * FROM parquet.`{events}` WHERE k >= 900").collect()[0].plan
    body, section = plan.split("== Skipstone ==")
    assert f"Skipstone {events}: skipped 9 of 10 files" in body
    assert f"Scan parquet {events}: skipped 9 of 10 files" in section
    formatted = spark.sql(f"EXPLAIN FORMATTED SELECT * FROM parquet.`{events}` WHERE k >= 900").collect()[0].plan
    assert f"Skipstone\nDataset: {events}\nSkipping: skipped 9 of 10 files" in formatted


def test_a_row_based_scan_answers_the_same_and_reports_its_skipping(spark, tmp_path):
    """JSON is read row by row (no columnar batches): the node passes rows through."""
    root = str(tmp_path / "json")
    spark.range(0, 1000, 1, 10).selectExpr("id AS k", "id % 7 AS c").write.json(root)
    Skipstone.for_path(spark, root, format="json").build(MinMax("k"))
    rows, stats = run_both_ways(spark, f"SELECT * FROM json.`{root}` WHERE k BETWEEN 420 AND 440")
    assert len(rows) == 21 and stats.files_skipped == 9
    df = spark.sql(f"SELECT * FROM json.`{root}` WHERE k BETWEEN 420 AND 440")
    df.collect()
    [node] = skipstone_nodes(df._jdf.queryExecution().executedPlan())
    assert not node.supportsColumnar() and plan_metrics(node)["filesSkipped"] == 9


def test_a_scan_without_an_index_has_no_skipstone_node(spark, tmp_path):
    plain = write_clustered(str(tmp_path / "plain"), files=2)
    df = spark.sql(f"SELECT * FROM parquet.`{plain}` WHERE k = 1")
    df.collect()
    assert skipstone_nodes(df._jdf.queryExecution().executedPlan()) == []
