"""The adaptive optimizer and the built-in policies priced in what Spark pays (SparkCost):
a rewrite is one Spark job with a fixed cost, so a plan is taken only when the window's
queries pay that back, whatever it saves per row.

The table: x in 0..7 (100 rows each), y in 0..99 once per x; 800 rows in two 400-row blocks
cut on y. The query x <= 3 reads both blocks; cutting on x instead makes it read one.
At 100 bytes per row, no per-file cost and c = 1, each query saves 400 x 100 = 40,000 bytes
and the rewrite costs 800 x 100 + the job's bytes.
"""

from __future__ import annotations

import numpy as np
import pytest

from skipstone.layout import AmoebaAdaptive, LayoutData, Leaf, PartitionTree, PawRebuild, Query, RowsRead, SparkCost, Split
from skipstone.layout.adaptive.optimizer import OptimizerOptions, best_plan
from skipstone.layout.adaptive.window import QueryWindow

X, Y = 0, 1
JOB = 400_000.0  # with 80,000 bytes rewritten: 480,000, i.e. 12 queries' savings
PRICED = SparkCost(bytes_per_row=100, file_bytes=0, job_bytes=JOB)


@pytest.fixture(scope="module")
def table() -> LayoutData:
    return LayoutData.from_columns({"x": np.repeat(np.arange(8), 100), "y": np.tile(np.arange(100), 8)})


@pytest.fixture(scope="module")
def tree(table) -> PartitionTree:
    return PartitionTree(table.schema, Split(Y, 49, Leaf(0), Leaf(1))).with_counts(table)


def x_at_most_3(table: LayoutData) -> Query:
    return Query.from_json({"column": "x", "op": "<=", "value": 3}, table.schema)


def window_of(query: Query, times: int) -> QueryWindow:
    window = QueryWindow(horizon=1000)
    for t in range(times):
        window = window.add(t, query)
    return window


def options(model=PRICED, **kw) -> OptimizerOptions:
    return OptimizerOptions(write_multiplier=1.0, cost_model=model, **kw)


def test_a_rewrite_the_window_cannot_pay_back_is_refused(table, tree):
    q = x_at_most_3(table)
    # 12 queries save 480,000 bytes: exactly the rewrite's cost, not more
    assert best_plan(tree, window_of(q, 12), q, table, options()) is None


def test_the_same_rewrite_is_taken_once_the_window_pays_it_back(table, tree):
    q = x_at_most_3(table)
    plan = best_plan(tree, window_of(q, 13), q, table, options())
    assert plan is not None and (plan.tree.root.column, plan.tree.root.cut) == (X, 3.0)
    assert (plan.benefit, plan.cost) == (13 * 40_000.0, 80_000.0 + JOB)


def test_rows_read_sees_no_fixed_cost_and_takes_the_rewrite_that_spark_refuses(table, tree):
    q = x_at_most_3(table)
    assert best_plan(tree, window_of(q, 9), q, table, options(RowsRead())) is not None
    assert best_plan(tree, window_of(q, 9), q, table, options()) is None


def test_a_cost_per_file_is_part_of_what_a_query_saves(table, tree):
    # each query now opens one file fewer: 40,000 + 40,000 saved. The rewrite is priced by the
    # bytes it writes (80,000) and the job (400,000), not by files opened: 6 queries save
    # 480,000, which does not pay; 7 do
    q = x_at_most_3(table)
    per_file = SparkCost(bytes_per_row=100, file_bytes=40_000, job_bytes=JOB)
    assert best_plan(tree, window_of(q, 6), q, table, options(per_file)) is None
    plan = best_plan(tree, window_of(q, 7), q, table, options(per_file))
    assert plan is not None and (plan.benefit, plan.cost) == (7 * 80_000.0, 80_000.0 + JOB)


def test_leaving_out_the_job_cost_prices_only_the_blocks(table, tree):
    q = x_at_most_3(table)
    plan = best_plan(tree, window_of(q, 3), q, table, options(charge_job=False))
    assert plan is not None and plan.cost == 80_000.0


def test_the_policy_refuses_what_its_window_cannot_pay_back_and_takes_what_it_can(table, tree):
    q = x_at_most_3(table)
    policy = AmoebaAdaptive(window=100, write_multiplier=1.0, cost_model=PRICED)
    assert policy.propose(tree, [q] * 12, table) is None
    change = policy.propose(tree, [q] * 13, table)
    assert change is not None and change.rewritten_blocks == (0, 1)
    assert change.benefit > change.cost == 80_000.0 + JOB


def test_the_calibrated_defaults_refuse_a_rewrite_of_a_tiny_table(table, tree):
    # 800 rows of 100 bytes: no window of 100 queries pays a Spark job back
    q = x_at_most_3(table)
    assert AmoebaAdaptive().with_bytes_per_row(100).propose(tree, [q] * 100, table) is None
    assert PawRebuild(block_rows=400).with_bytes_per_row(100).propose(tree, [q] * 100, table) is None


def test_a_table_supplies_bytes_per_row_only_where_the_user_gave_none():
    assert AmoebaAdaptive().with_bytes_per_row(42).cost_model.bytes_per_row == 42
    assert AmoebaAdaptive(cost_model=PRICED).with_bytes_per_row(42).cost_model.bytes_per_row == 100
    assert AmoebaAdaptive(cost_model=RowsRead()).with_bytes_per_row(42).cost_model == RowsRead()


def test_spark_cost_without_bytes_per_row_says_so(table, tree):
    q = x_at_most_3(table)
    with pytest.raises(ValueError, match="bytes_per_row"):
        AmoebaAdaptive().propose(tree, [q] * 10, table)


def test_spark_cost_rejects_negative_prices():
    with pytest.raises(ValueError, match="SparkCost.job_bytes"):
        SparkCost(bytes_per_row=1, job_bytes=-1)


def test_new_blocks_are_priced_at_the_rows_the_sample_stands_for(table, tree):
    # a quarter of the rows as the sample: each of its rows stands for 4 of the table's, so
    # the new blocks hold 400 rows each, as with the whole table
    q = x_at_most_3(table)
    quarter = LayoutData(table.schema, table.values[::4])
    plan = best_plan(tree, window_of(q, 13), q, quarter, options())
    assert plan is not None and plan.benefit == pytest.approx(13 * 40_000.0)
    assert [leaf.rows for leaf in plan.tree.leaves] == pytest.approx([400.0, 400.0])


@pytest.mark.parametrize("seed", range(12))
def test_the_bound_that_skips_the_search_never_hides_a_plan_that_pays(seed):
    """Random trees, windows and prices: every plan the search finds saves net of its writing at
    most what ``most_any_rewrite_saves`` allows, so skipping the search below it loses nothing."""
    from skipstone.layout import build_kd_tree
    from skipstone.layout.cost_model import most_any_rewrite_saves, write_costs

    rng = np.random.default_rng(seed)
    data = LayoutData.from_columns({"a": rng.random(3000), "b": rng.integers(0, 50, 3000), "c": rng.random(3000)})
    tree = build_kd_tree(data, block_rows=int(rng.integers(100, 400)))
    model = [RowsRead(), SparkCost(bytes_per_row=float(rng.integers(10, 200)), file_bytes=float(rng.integers(0, 50_000)),
                                   job_bytes=float(rng.integers(0, 100_000)))][seed % 2]
    c = float(rng.choice([1.0, 2.0, 4.0]))
    queries = []
    for _ in range(int(rng.integers(3, 15))):
        column = str(rng.choice(["a", "b", "c"]))
        low = float(rng.random() * (50 if column == "b" else 1))
        queries.append(Query.from_ranges(data.schema, {column: (low, low + float(rng.random()) * (10 if column == "b" else 0.3))}))
    window = QueryWindow(horizon=1000)
    for t, q in enumerate(queries):
        window = window.add(t, q)
    touches = np.sum([tree.touched(q) for q in queries], axis=0)
    bound = most_any_rewrite_saves(model, tree.block_rows, touches, c)
    options = OptimizerOptions(write_multiplier=c, cost_model=model)
    found = [p for p in (best_plan(tree, window, q, data, options) for q in queries) if p is not None]
    for plan in found:
        rows = np.array([leaf.rows for leaf in tree.leaves if leaf.block in plan.rewritten_blocks])
        assert plan.benefit - c * write_costs(model, rows).sum() <= bound + 1e-6
