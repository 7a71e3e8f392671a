"""Amoeba's adaptive optimizer on trees small enough to price by hand.

The table: x in 0..7 (100 rows each), y in 0..99 once per x, z = y; 800 rows.
"""

from __future__ import annotations

import numpy as np
import pytest

from skipstone.layout import LayoutData, Leaf, PartitionTree, Query, Split
from skipstone.layout.adaptive.optimizer import OptimizerOptions, best_plan, query_cuts
from skipstone.layout.adaptive.window import QueryWindow

X, Y, Z = 0, 1, 2


@pytest.fixture(scope="module")
def table() -> LayoutData:
    x = np.repeat(np.arange(8), 100)
    y = np.tile(np.arange(100), 8)
    return LayoutData.from_columns({"x": x, "y": y, "z": y})


def tree_of(table: LayoutData, root) -> PartitionTree:
    return PartitionTree(table.schema, root).with_counts(table)


def window_of(query: Query, times: int) -> QueryWindow:
    window = QueryWindow(horizon=1000)
    for t in range(times):
        window = window.add(t, query)
    return window


def x_at_most(table: LayoutData, v: int) -> Query:
    return Query.from_json({"column": "x", "op": "<=", "value": v}, table.schema)


def test_swap_is_taken_when_the_window_benefit_exceeds_the_rewrite_cost(table):
    # two 400-row blocks cut on y; x <= 3 reads both (800). Swapping the root for x <= 3 makes
    # it read 400: benefit 9 * 400 = 3600 > cost 4 * 800 = 3200.
    tree = tree_of(table, Split(Y, 49, Leaf(0), Leaf(1)))
    q = x_at_most(table, 3)
    plan = best_plan(tree, window_of(q, 9), q, table)
    assert (plan.tree.root.column, plan.tree.root.cut) == (X, 3.0)
    assert (plan.benefit, plan.cost, plan.rewritten_rows) == (3600.0, 3200.0, 800.0)
    assert plan.rewritten_blocks == (0, 1) and plan.new_blocks == (2, 3)


def test_swap_is_declined_when_benefit_only_equals_cost(table):
    tree = tree_of(table, Split(Y, 49, Leaf(0), Leaf(1)))
    q = x_at_most(table, 3)
    assert best_plan(tree, window_of(q, 8), q, table) is None  # 8 * 400 = 3200, not more


def test_write_multiplier_raises_the_bar(table):
    tree = tree_of(table, Split(Y, 49, Leaf(0), Leaf(1)))
    q = x_at_most(table, 3)
    assert best_plan(tree, window_of(q, 9), q, table, OptimizerOptions(write_multiplier=5)) is None


def test_only_the_blocks_the_query_reads_are_rewritten(table):
    # x <= 3 | y-cut | y-cut. Query x <= 1 reads the left 400 rows; swapping the left y-cut
    # for x <= 1 halves that: benefit 9 * 200 = 1800 > 4 * 400 = 1600. The right half keeps
    # its blocks (rotate then lifts x <= 1 above x <= 3, a free rearrangement).
    root = Split(X, 3, Split(Y, 49, Leaf(0), Leaf(1)), Split(Y, 49, Leaf(2), Leaf(3)))
    tree = tree_of(table, root)
    q = x_at_most(table, 1)
    plan = best_plan(tree, window_of(q, 9), q, table)
    assert plan.rewritten_blocks == (0, 1)
    assert plan.tree.root.right.right == tree.root.right
    assert plan.tree.cost(q) == 200.0


def test_pushup_lifts_the_predicate_once_both_children_carry_it(table):
    # y <= 49 | (x <= 3 | ...) (z <= 24 | ...). Query x <= 3: the right child is swapped to
    # x <= 3, both children then start with x <= 3 and pushup makes it the root for free.
    root = Split(Y, 49, Split(X, 3, Leaf(0), Leaf(1)), Split(Z, 74, Leaf(2), Leaf(3)))
    tree = tree_of(table, root)
    q = x_at_most(table, 3)
    plan = best_plan(tree, window_of(q, 9), q, table)
    assert (plan.tree.root.column, plan.tree.root.cut) == (X, 3.0)
    assert plan.steps[-1] == "pushup"
    assert plan.rewritten_blocks == (2, 3)  # the left half already had x <= 3: kept as is


def test_rotate_moves_the_more_specific_cut_on_the_same_attribute_up(table):
    # x <= 5 | (y <= 49 | ...) leaf. Query x <= 2 swaps the left y-cut to x <= 2, and rotate
    # puts x <= 2 above x <= 5.
    root = Split(X, 5, Split(Y, 49, Leaf(0), Leaf(1)), Leaf(2))
    tree = tree_of(table, root)
    q = x_at_most(table, 2)
    plan = best_plan(tree, window_of(q, 9), q, table)
    assert (plan.tree.root.column, plan.tree.root.cut) == (X, 2.0)
    assert (plan.tree.root.right.column, plan.tree.root.right.cut) == (X, 5.0)
    assert plan.steps[-1] == "rotate"


def test_alternating_attributes_do_not_repartition_back_and_forth(table):
    # Amoeba §4.1: after x is in the tree, queries on y alone cannot pay for undoing it
    tree = tree_of(table, Split(X, 3, Leaf(0), Leaf(1)))
    qx, qy = x_at_most(table, 3), Query.from_json({"column": "y", "op": "<=", "value": 49}, table.schema)
    window = QueryWindow(horizon=1000)
    for t in range(10):
        window = window.add(t, qx if t % 2 else qy)
    assert best_plan(tree, window, qy, table) is None


def test_plan_rows_of_new_blocks_are_estimated_from_the_sample(table):
    tree = tree_of(table, Split(Y, 49, Leaf(0), Leaf(1)))
    q = x_at_most(table, 3)
    sample = table.sample(400, seed=1)  # half the rows stand for all
    plan = best_plan(tree, window_of(q, 9), q, sample)
    assert plan.tree.total_rows == pytest.approx(800.0)


def test_query_cuts_come_from_every_finite_bound(table):
    q = Query.from_json({"and": [{"column": "x", "op": ">=", "value": 5}, {"column": "y", "op": "<", "value": 3}]}, table.schema)
    assert [(c.column, c.cut) for c in query_cuts(q)] == [(X, 4.0), (Y, 2.0)]


def test_window_forgets_queries_older_than_the_horizon():
    from skipstone.layout.boxes import BoxSet

    q = Query(BoxSet.universe(1))
    assert QueryWindow(horizon=5).add(0, q).add(3, q).add(6, q).times == (3.0, 6.0)


def test_unknown_objective_is_named():
    with pytest.raises(ValueError, match="'cheapest'"):
        OptimizerOptions(objective="cheapest")


@pytest.fixture(scope="module")
def four_bits() -> LayoutData:
    # 1,600 rows: a, b, c, d are the four bits of i in 0..15, each i 100 times, so every
    # attribute is independent of the others and halves any region at <= 0
    i = np.repeat(np.arange(16), 100)
    return LayoutData.from_columns({"a": i & 1, "b": (i >> 1) & 1, "c": (i >> 2) & 1, "d": (i >> 3) & 1})


def test_queries_on_a_different_attribute_each_never_pay_for_a_rewrite(four_bits):
    # Amoeba §6 worst case. Tree a <= 0 | b <= 0 | b <= 0: four 400-row blocks. The window
    # holds one query per attribute (x <= 0 for x = a, b, c, d), the current one on d. Any swap
    # to d <= 0 saves the d query at most half the node's rows and costs the query that used the
    # old cut as much (b node: +400 -400; root: +800 -800), while rewriting costs 4x the rows:
    # with each attribute once in the window, benefit <= rows < 4 * rows.
    leaves = iter(range(4))
    half = lambda: Split(1, 0, Leaf(next(leaves)), Leaf(next(leaves)))  # noqa: E731
    tree = PartitionTree(four_bits.schema, Split(0, 0, half(), half())).with_counts(four_bits)
    window = QueryWindow(horizon=1000)
    for t, name in enumerate("abcd"):
        q = Query.from_json({"column": name, "op": "<=", "value": 0}, four_bits.schema)
        window = window.add(t, q)
    assert best_plan(tree, window, q, four_bits) is None


def test_a_plan_is_only_returned_when_its_benefit_exceeds_its_cost(four_bits):
    # the same tree with the d query 5 times: swapping one b node (800 rows) for d <= 0 saves
    # each d query 400 rows (5 * 400 = 2,000) and costs the b query 400: 1,600 < 4 * 800
    # = 3,200; swapping both b nodes then pushing d up saves 5 * 800 - 800 = 3,200, not more
    # than 4 * 1,600; whatever the greedy finds, the gate holds.
    tree = PartitionTree(four_bits.schema, Split(0, 0, Split(1, 0, Leaf(0), Leaf(1)), Split(1, 0, Leaf(2), Leaf(3))))
    tree = tree.with_counts(four_bits)
    qd = Query.from_json({"column": "d", "op": "<=", "value": 0}, four_bits.schema)
    window = QueryWindow(horizon=1000)
    for t, q in enumerate([Query.from_json({"column": "b", "op": "<=", "value": 0}, four_bits.schema)] + [qd] * 5):
        window = window.add(t, q)
    plan = best_plan(tree, window, qd, four_bits)
    assert plan is None or plan.benefit > plan.cost
    assert plan is None


def test_sampling_noise_in_a_small_subtree_does_not_pose_as_benefit(table):
    # x <= 0 | (y <= 49: 50 + 50 rows) | 700 rows. Nine queries y <= 74 read the whole left
    # node; swapping its cut for y <= 74 truly saves 9 * 25 = 225 rows and rewrites 100 (cost
    # 400): no. A sample holding all 100 rows of x = 0 but 100 of the 700 others
    # over-represents that node 7x; scaled by table / sample (800 / 200 = 4) it looked like
    # 9 * 100 = 900 rows to save. The root swap saves 9 * 200 = 1,800 < 4 * 800.
    tree = tree_of(table, Split(X, 0, Split(Y, 49, Leaf(0), Leaf(1)), Leaf(2)))
    rows = np.concatenate([np.arange(100), np.arange(100, 800, 7)])
    sample = LayoutData(table.schema, table.values[rows])
    q = Query.from_json({"column": "y", "op": "<=", "value": 74}, table.schema)
    assert best_plan(tree, window_of(q, 9), q, sample) is None


def test_grouped_partitions_are_refused_by_name(table):
    # Amoeba's transformations are defined on binary cuts; a PAW tree is not silently mangled
    from skipstone.layout.tree import Group, GroupSplit

    group = Group((-np.inf, -np.inf, -np.inf), (3.0, np.inf, np.inf), Leaf(0))
    tree = tree_of(table, GroupSplit((group,), Leaf(1)))
    q = x_at_most(table, 1)
    with pytest.raises(TypeError, match="GroupSplit"):
        best_plan(tree, window_of(q, 9), q, table)
