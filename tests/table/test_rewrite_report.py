"""t.rewrite_report() puts what each layout rewrite predicted next to what it realized on the
queries since, by hand on a tiny table: 800 rows in two blocks of 400 cut on y; ``x <= 1``
matches 200 rows and reads all 800 of them until BoundedRewrite re-cuts the table for x, after
which it reads one block of 200. Priced in rows, each query since saves 600; the rewrite cost
0.5 x 800 = 400, so it breaks even on the first query."""
from __future__ import annotations

import json

import pytest

import numpy as np

from skipstone import Skipstone
from skipstone.layout import BoundedRewrite, KdTree, LayoutData, Leaf, PartitionTree, RowsRead, SparkCost, Split
from skipstone.table.rewrite_report import realized_benefit

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


def test_bounded_rewrite_recuts_the_block_the_files_statistics_make_a_query_read(spark, tmp_path):
    """w copies x, and the table is cut on w: ``x <= 0`` reads only the block w <= 3 (400 rows
    for 100), its files' statistics rule the other out, although the cuts say nothing of x.
    Priced by cuts the query reads both blocks, and BoundedRewrite re-cut the block w > 3, which
    it never reads (realized: nothing, as the next test shows by hand); priced as Spark skips,
    it re-cuts w <= 3 for x, and each query since reads fewer of its rows."""
    df = spark.range(800).selectExpr("id DIV 100 AS x", "id DIV 100 AS w", "id % 100 AS y")
    t = Skipstone.create(spark, str(tmp_path / "t"), df, layout=KdTree(block_rows=400, columns=["w"]))
    for _ in range(2):
        t.read().where("x <= 0").count()
    assert t.optimize(BoundedRewrite(block_rows=200, write_multiplier=0.5, cost_model=RowsRead())) is not None
    for _ in range(3):
        assert t.read().where("x <= 0").count() == 100
    [row] = report(t)
    assert row["unit"] == "w<=3 (1 blocks, cut for x)"  # by cuts: and "w>3 (1 blocks, cut for x)"
    assert row["queries_since"] == 3 and row["realized_benefit"] >= 3 * 200 and row["broken_even"]


def test_realized_is_what_the_files_statistics_skip_not_what_the_cuts_say():
    """The re-cut cut-pricing chose above, by hand: the block w > 3 re-cut for x. The query
    x <= 1 never read it (its rows' x are 4..7), so the rewrite realizes nothing; by the cuts,
    which cannot see x in a tree cut on w, it would seem to save 200 rows a query."""
    data = LayoutData.from_columns({"x": np.arange(800) // 100, "w": np.arange(800) // 100, "y": np.arange(800) % 100})
    before = PartitionTree(data.schema, Split(1, 3.0, Leaf(0), Leaf(1))).with_counts(data)
    after = PartitionTree(data.schema, Split(1, 3.0, Leaf(0), Split(0, 5.0, Leaf(2), Leaf(3)))).with_counts(data)
    logged = [{"column": "x", "op": "<=", "value": 1}] * 3
    assert realized_benefit(before, after, logged, RowsRead(), data, data) == 0.0
    assert realized_benefit(before, after, logged, RowsRead()) == 3 * 200.0


def test_a_policy_counts_the_files_the_table_splits_a_large_block_into(spark, tmp_path):
    """The JVM writes a block of more than MaxBlockFactor x the target rows as several files,
    and a query that reads the block opens each: the policy's SparkCost gets that limit from
    the table (the plan records the model it priced with; planned only, nothing written).
    Without it, a tree of a few large blocks (a column of few values) looked as if each were
    one file."""
    from skipstone.layout import AutoColumns
    from skipstone.layout.cost_model import SparkCost
    from skipstone.table.optimize import plan

    df = spark.range(800).selectExpr("id DIV 100 AS x", "id % 100 AS y")
    t = Skipstone.create(spark, str(tmp_path / "t"), df, layout=KdTree(block_rows=100, columns=["y"]))
    for _ in range(3):
        t.read().where(QUERY).count()
    planned = plan(spark, t.current(), None, AutoColumns(force=True))
    factor = spark._jvm.io.skipstone.table.TableTransaction.MaxBlockFactor()
    block_rows = float(t.current().properties["layout.blockRows"])
    assert planned is not None and planned.cost_model["kind"] == "SparkCost"
    assert planned.cost_model["rows_per_file"] == factor * block_rows
    assert SparkCost(bytes_per_row=1, file_bytes=10).with_file_rows(200).block_costs(np.array([500.0])) == [500 + 3 * 10]
    assert SparkCost(bytes_per_row=1, file_bytes=10, rows_per_file=1000).with_file_rows(200).rows_per_file == 1000
