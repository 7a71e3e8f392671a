"""Builders, checked on cases small enough to work out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from skipstone.layout import LayoutData, Query, Split, build_amoeba_tree, build_kd_tree, build_range_tree
from skipstone.layout.builders.median import median_cut
from skipstone.layout.curves import build_curve_layout


def splits(node) -> list[tuple[int, float]]:
    """(column, cut) of every split, breadth first."""
    out, queue = [], [node]
    while queue:
        n = queue.pop(0)
        if isinstance(n, Split):
            out.append((n.column, n.cut))
            queue += [n.left, n.right]
    return out


def test_median_cut_balances_the_skewed_example_of_amoeba():
    # D1 = {1,1,1,2,2,2,3,4,5,6,7,8}: the median partitioning is {1,1,1} {2,2,2} {3,4,5} {6,7,8}
    data = LayoutData.from_columns({"a": np.array([1, 1, 1, 2, 2, 2, 3, 4, 5, 6, 7, 8])})
    tree = build_range_tree(data, "a", block_rows=3)
    assert splits(tree.root) == [(0, 2.0), (0, 1.0), (0, 5.0)]
    assert tree.block_rows.tolist() == [3.0, 3.0, 3.0, 3.0]


def test_median_cut_refuses_a_column_with_one_value():
    assert median_cut(np.array([4.0, 4.0, 4.0])) is None


def test_blocks_hold_between_one_and_two_block_sizes():
    rng = np.random.default_rng(0)
    data = LayoutData.from_columns({"a": rng.random(10_000), "b": rng.random(10_000)})
    rows = build_kd_tree(data, block_rows=300).block_rows
    assert rows.min() >= 300 and rows.max() < 600


def test_sample_rows_are_scaled_to_the_table_size():
    data = LayoutData.from_columns({"a": np.arange(100.0)})
    tree = build_range_tree(data, "a", block_rows=250, total_rows=1000)
    assert tree.block_rows.tolist() == [250.0, 250.0, 250.0, 250.0]


def test_total_rows_below_the_sample_size_is_rejected_by_name():
    data = LayoutData.from_columns({"a": np.arange(100.0)})
    with pytest.raises(ValueError, match="total_rows"):
        build_range_tree(data, "a", block_rows=10, total_rows=50)


def test_kd_tree_takes_columns_in_round_robin_by_level():
    grid = np.array([(a, b, c) for a in range(2) for b in range(2) for c in range(2)] * 10, dtype=float)
    data = LayoutData.from_columns({"a": grid[:, 0], "b": grid[:, 1], "c": grid[:, 2]})
    tree = build_kd_tree(data, block_rows=10)
    assert [col for col, _ in splits(tree.root)] == [0, 1, 1, 2, 2, 2, 2]


def test_kd_tree_skips_a_column_that_cannot_split():
    data = LayoutData.from_columns({"flat": np.zeros(40), "x": np.arange(40.0)})
    assert {col for col, _ in splits(build_kd_tree(data, block_rows=10).root)} == {1}


def test_range_tree_on_an_unknown_column_names_it():
    data = LayoutData.from_columns({"a": np.arange(10.0)})
    with pytest.raises(KeyError, match="nope"):
        build_range_tree(data, "nope", block_rows=2)


def uniform(columns: str, rows: int = 4096, seed: int = 0) -> LayoutData:
    rng = np.random.default_rng(seed)
    return LayoutData.from_columns({c: rng.random(rows) for c in columns})


def test_amoeba_spends_two_allocation_units_per_level():
    # 8 blocks = 3 levels; each level's nodes cover all the data with fanout 2
    tree = build_amoeba_tree(uniform("ABCD"), block_rows=512)
    assert tree.allocation().sum() == pytest.approx(6.0, abs=0.05)


def test_amoeba_branches_heterogeneously_below_the_root():
    tree = build_amoeba_tree(uniform("ABCD"), block_rows=512)
    assert tree.root.left.column != tree.root.right.column != tree.root.column


def test_amoeba_spreads_allocation_more_evenly_than_a_kd_tree():
    # 16 blocks over 8 attributes: the k-d tree gives 4 attributes 2 each and 4 nothing,
    # Amoeba reaches every attribute.
    data = uniform("ABCDEFGH", rows=8192)
    kd = build_kd_tree(data, block_rows=512).allocation()
    amoeba = build_amoeba_tree(data, block_rows=512).allocation()
    assert np.round(kd, 2).tolist() == [2.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0, 0.0]
    assert (amoeba > 0).all()
    assert amoeba.std() < kd.std()


def test_amoeba_weights_steer_all_cuts_to_the_weighted_attribute():
    tree = build_amoeba_tree(uniform("AB"), block_rows=512, weights={"B": 1.0})
    assert {col for col, _ in splits(tree.root)} == {1}


def test_amoeba_weights_in_proportion_three_to_one():
    # 16 blocks, 4 levels, 8 units of allocation: B gets 6 and A gets 2
    tree = build_amoeba_tree(uniform("AB", rows=8192), block_rows=512, weights={"A": 1.0, "B": 3.0})
    assert np.round(tree.allocation(), 1).tolist() == [2.0, 6.0]


def test_amoeba_rejects_a_negative_weight_by_column():
    with pytest.raises(ValueError, match="'A'"):
        build_amoeba_tree(uniform("AB"), block_rows=512, weights={"A": -1.0})


def test_zorder_blocks_are_the_quadrants_of_a_grid():
    grid = np.array([(x, y) for x in range(4) for y in range(4)], dtype=float)
    data = LayoutData.from_columns({"x": grid[:, 0], "y": grid[:, 1]})
    layout = build_curve_layout(data, "zorder", block_rows=4, bits=2)
    corner = Query.from_ranges(data.schema, {"x": (0, 1), "y": (0, 1)})
    assert layout.block_rows.tolist() == [4.0, 4.0, 4.0, 4.0]
    assert layout.cost(corner) == 4.0


def test_hilbert_layout_reads_one_block_for_a_quadrant_query():
    grid = np.array([(x, y) for x in range(4) for y in range(4)], dtype=float)
    data = LayoutData.from_columns({"x": grid[:, 0], "y": grid[:, 1]})
    layout = build_curve_layout(data, "hilbert", block_rows=4, bits=2)
    assert layout.cost(Query.from_ranges(data.schema, {"x": (2, 3), "y": (2, 3)})) == 4.0


def test_unknown_curve_is_named_in_the_error():
    with pytest.raises(ValueError, match="peano"):
        build_curve_layout(uniform("AB"), "peano", block_rows=10)


def dates_and_others(rows: int = 16384) -> LayoutData:
    """Three columns that move together, as TPC-H's dates do, and three independent ones."""
    rng = np.random.default_rng(3)
    base = rng.random(rows)
    return LayoutData.from_columns({
        "d1": base, "d2": base + rng.normal(0, 0.01, rows), "d3": base + rng.normal(0, 0.02, rows),
        "a": rng.random(rows), "b": rng.random(rows), "c": rng.random(rows)})


def share_read_by_minmax(tree, data: LayoutData, columns: str | list[str]) -> float:
    """Rows read by 5 % ranges on each column, skipping files by the min/max of their rows."""
    from benchmarks.layout_sim.minmax_view import MinMaxView
    view = MinMaxView.of(tree.with_counts(data), data)
    queries = [Query.from_ranges(data.schema, {c: (lo, lo + 0.05)}) for c in columns for lo in np.linspace(0, 0.95, 20)]
    return sum(view.cost(q) for q in queries) / (len(queries) * data.rows)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_amoeba_with_correlations_reads_less_when_columns_move_together(seed):
    # The paper's tree spends half its cuts on the three dates, which one cut separates at
    # once; ours counts that and reads less on every kind of column.
    data = dates_and_others()
    paper = build_amoeba_tree(data, block_rows=256, seed=seed, correlations=False)
    ours = build_amoeba_tree(data, block_rows=256, seed=seed)
    every, independent = ["d1", "d2", "d3", "a", "b", "c"], ["a", "b", "c"]
    assert share_read_by_minmax(ours, data, every) < share_read_by_minmax(paper, data, every)
    assert share_read_by_minmax(ours, data, independent) < share_read_by_minmax(paper, data, independent)

def rows_at_cut_nodes(node, values: np.ndarray, rows: np.ndarray) -> list[int]:
    """How many of the sample's rows reach each node that is cut."""
    if not isinstance(node, Split):
        return []
    left = values[rows, node.column] <= node.cut
    return [len(rows)] + rows_at_cut_nodes(node.left, values, rows[left]) + rows_at_cut_nodes(node.right, values, rows[~left])


def test_our_amoeba_cuts_no_node_under_two_blocks_as_the_kd_tree():
    """A few-valued column cuts unevenly; the paper's fixed depth then cuts nodes just under two
    blocks into blocks smaller than asked (files that cost more to open than they save)."""
    rng = np.random.default_rng(5)
    rows = 20_000
    data = LayoutData.from_columns({"flag": rng.choice([0, 1, 2], rows, p=[0.5, 0.3, 0.2]).astype(float),
                                    "x": rng.random(rows), "y": rng.random(rows)})
    block_rows = rows / 32 * 0.999            # five levels, whose last nodes are barely two blocks
    cut_sizes = lambda tree: rows_at_cut_nodes(tree.root, data.values, np.arange(rows))  # noqa: E731
    ours = build_amoeba_tree(data, block_rows=block_rows)
    paper = build_amoeba_tree(data, block_rows=block_rows, correlations=False)
    assert min(cut_sizes(ours)) >= 2 * block_rows
    assert min(cut_sizes(paper)) < 2 * block_rows and paper.block_count == 32
    assert ours.block_count < 32 and ours.block_rows.min() >= paper.block_rows.min()


def test_amoeba_with_correlations_matches_the_paper_on_independent_columns():
    data = uniform("ABCD", rows=8192)
    paper = build_amoeba_tree(data, block_rows=512, correlations=False).allocation()
    ours = build_amoeba_tree(data, block_rows=512).allocation()
    assert np.round(np.sort(ours), 1).tolist() == np.round(np.sort(paper), 1).tolist()


@pytest.mark.parametrize("seed", range(20))
def test_median_cuts_send_as_close_to_half_left_as_any_cut_can_column_by_column(seed):
    # Against every possible cut (each distinct value but the largest): the best balance, and
    # no cut exactly when a column holds one value. median_cut is the one-column case.
    from skipstone.layout.builders.median import median_cuts
    rng = np.random.default_rng(seed)
    rows = int(rng.integers(2, 40))
    keys = np.column_stack([rng.integers(0, k, rows).astype(float) for k in (1, 2, 3, 5, 50)])
    cuts, cuttable = median_cuts(keys)
    for c in range(keys.shape[1]):
        distinct = np.unique(keys[:, c])
        assert cuttable[c] == (len(distinct) > 1)
        if len(distinct) > 1:
            best = min(abs((keys[:, c] <= v).sum() - rows / 2) for v in distinct[:-1])
            left = (keys[:, c] <= cuts[c]).sum()
            assert 0 < left < rows and abs(left - rows / 2) == best
            assert median_cut(keys[:, c]) == cuts[c]

def test_ranks_count_the_values_below_and_up_to_each_value():
    from skipstone.layout.builders.skipping_gain import _ranks
    values = np.array([[3.0], [1.0], [3.0], [2.0], [3.0]])
    below, upto = _ranks(values)
    assert (below[:, 0] * 5).round().tolist() == [2, 0, 2, 1, 2]
    assert (upto[:, 0] * 5).round().tolist() == [5, 1, 5, 2, 5]
