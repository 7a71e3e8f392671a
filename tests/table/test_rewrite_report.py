"""t.rewrite_report() puts what each layout rewrite predicted next to what it realized on the
queries since, by hand on a tiny table: 800 rows in two blocks of 400 cut on y; ``x <= 1``
matches 200 rows and reads all 800 of them until BoundedRewrite re-cuts the table for x, after
which it reads one block of 200. Priced in rows, each query since saves 600; the rewrite cost
0.5 x 800 = 400, so it breaks even on the first query."""
from __future__ import annotations

import json

import pytest

from skipstone import Skipstone
from skipstone.layout import BoundedRewrite, KdTree, RowsRead, SparkCost

QUERY = "x <= 1"


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    df = spark.range(800).selectExpr("id DIV 100 AS x", "id % 100 AS y")
    t = Skipstone.create(spark, str(tmp_path_factory.mktemp("report") / "t"), df,
                         layout=KdTree(block_rows=400, columns=["y"]))
    for _ in range(2):
        t.read().where(QUERY).count()
    result = t.optimize(BoundedRewrite(block_rows=200, write_multiplier=0.5, cost_model=RowsRead()))
    assert result is not None and result.strategy == "layout"
    return t


def report(t, model=None):
    return [r.asDict() for r in t.rewrite_report(model).collect()]


def test_a_rewrite_no_query_has_read_yet_has_realized_nothing(table):
    [row] = report(table)
    info = json.loads(table.history().collect()[-1].commit_info)
    assert row == {"version": 2, "policy": "BoundedRewrite", "unit": info["unit"], "cost": 400.0,
                   "predicted_benefit": info["predicted_benefit"], "break_even_queries": pytest.approx(400 / 600),
                   "queries_since": 0, "realized_benefit": 0.0, "broken_even": False}


def test_each_query_since_the_rewrite_realizes_what_the_old_layout_would_have_cost_it_more(table):
    for _ in range(3):
        table.read().where(QUERY).count()
    [row] = report(table)
    assert (row["queries_since"], row["realized_benefit"], row["broken_even"]) == (3, 1800.0, True)


def test_by_default_the_report_prices_as_the_policy_did_and_any_model_can_be_asked(table):
    assert json.loads(table.history().collect()[-1].commit_info)["cost_model"] == {"kind": "RowsRead", "job_cost": 0.0}
    assert report(table) == report(table, RowsRead())
    files = table.current().files
    bytes_per_row = sum(f.size for f in files) / sum(f.rows for f in files)
    [row] = report(table, SparkCost(bytes_per_row=bytes_per_row, file_bytes=1000))
    # the old layout opened two files for 800 rows, the new one file for 200
    assert row["realized_benefit"] == pytest.approx(row["queries_since"] * (600 * bytes_per_row + 1000))
