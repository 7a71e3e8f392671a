"""Layout columns chosen by the workload (``choose_columns``, ``AutoColumns``): the workload's
columns are chosen, a moved workload changes them only when the gain outweighs the rewrite, and
a tree already cut on the right columns is left alone."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from skipstone.layout import AutoColumns, LayoutData, Query, RowsRead, SparkCost, build_kd_tree, choose_columns
from skipstone.layout.auto.columns import candidate_columns, column_weights
from skipstone.layout.cost_model import query_price


@pytest.fixture(scope="module")
def data() -> LayoutData:
    rng = np.random.default_rng(7)
    return LayoutData.from_columns({c: rng.random(8000) for c in "abcd"})


def ranges(data: LayoutData, columns: str, count: int, seed: int, width: float = 0.1) -> list[Query]:
    """``count`` boxes of ``width`` on each of ``columns`` at random places."""
    rng = np.random.default_rng(seed)
    return [Query.from_ranges(data.schema, {c: (lo, lo + width) for c in columns}) for lo in rng.uniform(0, 0.9, count)]


def rows_policy(write_multiplier: float = 1.0, **options) -> AutoColumns:
    return AutoColumns(block_rows=250, write_multiplier=write_multiplier, cost_model=RowsRead(), **options)


def test_a_workload_on_a_and_b_chooses_a_and_b(data):
    tree = build_kd_tree(data, block_rows=250, columns=["c", "d"])
    choice = choose_columns(tree, ranges(data, "ab", 40, seed=1), data, block_rows=250, cost_model=RowsRead(),
                            write_multiplier=1)
    assert set(choice.columns) == {"a", "b"}
    assert choice.cost_per_query < 0.3 * choice.current_per_query
    assert choice.rewrite_cost == tree.total_rows  # c = 1, rows: every row written once


def test_a_column_filtered_more_narrowly_weighs_more(data):
    narrow = Query.from_ranges(data.schema, {"a": (0.0, 0.05)})
    wide = Query.from_ranges(data.schema, {"b": (0.0, 0.8)})
    weights = column_weights([narrow, wide], data)
    assert weights[0] == pytest.approx(0.95, abs=0.02) and weights[1] == pytest.approx(0.2, abs=0.02)
    assert weights[2] == weights[3] == 0


def test_candidates_are_the_top_columns_the_frequent_templates_and_their_pairs(data):
    queries = ranges(data, "a", 5, seed=1) + ranges(data, "bc", 5, seed=2)
    weights = np.array([5.0, 4.0, 3.0, 0.0])
    assert candidate_columns(queries, weights, max_columns=3, hot_share=0.3) == [(0,), (0, 1), (0, 1, 2), (1, 2)]


def test_the_chosen_tree_replaces_every_block_with_new_ones(data):
    tree = build_kd_tree(data, block_rows=250, columns=["c"])
    change = rows_policy().propose(tree, ranges(data, "ab", 40, seed=3), data)
    assert change.rewritten_blocks == tuple(sorted(tree.block_ids.tolist()))
    assert change.tree.block_ids.min() > tree.block_ids.max()
    assert change.history_fields()["columns"] in (["a", "b"], ["b", "a"])
    assert {"predicted_benefit", "break_even_queries", "horizon_queries", "gain_per_query", "builder"} <= set(
        change.history_fields())


def test_no_recent_query_bounding_a_column_chooses_nothing(data):
    tree = build_kd_tree(data, block_rows=250, columns=["c"])
    everything = Query.from_json({"column": "a", "op": ">=", "value": -1.0}, data.schema)  # bounds a, keeps every row
    assert choose_columns(tree, [], data, 250, RowsRead(), 1) is None
    assert rows_policy().propose(tree, [everything] * 50, data) is None


def test_a_moved_workload_changes_the_columns_only_once_the_gain_outweighs_the_rewrite(data):
    old = ranges(data, "ab", 60, seed=4)
    tree = rows_policy().propose(build_kd_tree(data, block_rows=250, columns=["d"]), old, data).tree
    moved = ranges(data, "cd", 40, seed=5)
    cheap, dear = rows_policy(write_multiplier=1, window=40), rows_policy(write_multiplier=200, window=40)
    change = cheap.propose(tree, old + moved, data)
    assert set(change.columns) == {"c", "d"} and change.predicted_benefit > change.cost
    # the same choice, but the horizon's gain does not pay 200 x the table's rows
    choice = dear.choose(tree, old + moved, data)
    assert set(choice.columns) == {"c", "d"}
    assert dear.propose(tree, old + moved, data) is None
    # unless asked to, as OPTIMIZE t LAYOUT AUTO does
    forced = AutoColumns(window=40, block_rows=250, write_multiplier=200, cost_model=RowsRead(), force=True)
    assert set(forced.propose(tree, old + moved, data).columns) == {"c", "d"}


def test_a_tree_already_cut_on_the_best_columns_is_left_alone(data):
    workload = ranges(data, "ab", 60, seed=6)
    policy = rows_policy()
    tree = policy.propose(build_kd_tree(data, block_rows=250, columns=["c"]), workload, data).tree
    assert policy.propose(tree, workload, data) is None
    assert policy.propose(tree, workload + ranges(data, "ab", 20, seed=8), data) is None  # more of the same: no flapping
    # a cheap rewrite does not make it flap either: it is the margin, not the price, that keeps it
    assert AutoColumns(block_rows=250, write_multiplier=1e-6, cost_model=RowsRead(), force=True).propose(
        tree, workload, data) is None


def test_a_querys_fixed_price_moves_no_choice(data):
    """What every query pays whatever the layout (Spark's planning and job, ``query_bytes``) is no
    saving: the same tree is chosen at the same gain with none and with one that dwarfs the bytes
    (were the margin a share of the whole query's cost, a small table would never be re-laid out)."""
    tree = build_kd_tree(data, block_rows=250, columns=["c", "d"])
    workload = ranges(data, "ab", 40, seed=1)
    free = SparkCost(bytes_per_row=1.0, file_bytes=0.0, job_bytes=0.0, query_bytes=0.0)
    dear = replace(free, query_bytes=1e9)
    chosen = [choose_columns(tree, workload, data, 250, model, write_multiplier=1) for model in (free, dear)]
    assert chosen[0].columns == chosen[1].columns and chosen[0].gain_per_query == chosen[1].gain_per_query > 0
    assert query_price(dear) == 1e9 and query_price(RowsRead()) == 0.0


def test_a_policy_option_out_of_range_is_refused_by_name():
    with pytest.raises(ValueError, match="AutoColumns.margin"):
        AutoColumns(margin=1.5)
    with pytest.raises(ValueError, match="AutoColumns.builders"):
        AutoColumns(builders=("Hilbert",))


def test_once_a_new_template_takes_over_the_choice_is_made_from_its_queries_alone(data):
    # a window of 100: 75 queries on (a, b), then 25 on (c, d). Over the whole window (a, b)
    # weigh more; the queries since (c, d)'s run began call for (c, d)
    tree = build_kd_tree(data, block_rows=250, columns=["a", "b"])
    moved = ranges(data, "ab", 75, seed=4) + ranges(data, "cd", 25, seed=5)
    policy = rows_policy(window=100)
    assert set(policy.choose(tree, moved, data).columns) == {"c", "d"}
    whole = choose_columns(tree, moved, data, block_rows=250, cost_model=RowsRead(), write_multiplier=1, window=100)
    assert whole is None or set(whole.columns) != {"c", "d"}  # what the whole window said
    # too few queries of the new template yet: the whole window decides
    early = ranges(data, "ab", 90, seed=4) + ranges(data, "cd", 10, seed=5)
    early_choice = policy.choose(tree, early, data)
    assert early_choice is None or set(early_choice.columns) != {"c", "d"}


def test_a_kept_candidate_is_reused_only_for_the_same_spec_sample_and_size(data):
    from skipstone.layout import KdTree
    from skipstone.layout.auto.candidate_trees import built

    spec = KdTree(block_rows=250, columns=["a"])
    first = built(spec, data, 250, 8000)
    assert built(KdTree(block_rows=250, columns=["a"]), data, 250, 8000) is first
    others = [built(KdTree(block_rows=250, columns=["b"]), data, 250, 8000), built(spec, data, 500, 8000),
              built(spec, data, 250, 16000), built(spec, data.take(np.arange(4000)), 250, 8000)]
    assert all(t is not first for t in others)
    fresh = spec.build(data.take(np.arange(4000)), 250, 8000)  # what the kept one stands for
    assert fresh.block_count == others[-1].block_count and fresh.to_json() == others[-1].to_json()


def test_choosing_again_from_kept_candidates_chooses_the_same(data):
    tree = build_kd_tree(data, block_rows=250, columns=["c", "d"])
    queries = ranges(data, "ab", 40, seed=3)
    first = choose_columns(tree, queries, data, block_rows=250, cost_model=RowsRead(), write_multiplier=1)
    again = choose_columns(tree, queries, data, block_rows=250, cost_model=RowsRead(), write_multiplier=1)
    assert (again.columns, again.builder, again.cost_per_query) == (first.columns, first.builder, first.cost_per_query)
    assert again.tree.to_json() == first.tree.to_json()
