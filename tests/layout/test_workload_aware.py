"""Qd-tree and PAW, on small cases worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from skipstone.layout import GroupSplit, LayoutData, Query, Split
from skipstone.layout.builders.node_queries import NodeQueries
from skipstone.layout.builders.paw import PawOptions, build_paw_tree
from skipstone.layout.builders.paw_delta import estimate_delta, template_deltas
from skipstone.layout.builders.paw_plugins import tune_storage
from skipstone.layout.builders.paw_splits import multi_group_split
from skipstone.layout.builders.qdtree import build_qd_tree


def line(n: int = 100) -> LayoutData:
    return LayoutData.from_columns({"x": np.arange(n)})


def grid(side: int = 100) -> LayoutData:
    x, y = np.meshgrid(np.arange(side), np.arange(side), indexing="ij")
    return LayoutData.from_columns({"x": x.ravel(), "y": y.ravel()})


def test_qd_tree_cuts_at_the_query_boundaries_that_skip_most():
    # x in 0..99, query 10 <= x <= 29. Cutting at 29 skips 70 rows, at 9 only 10: 29 first,
    # then 9 inside the left part; the right part sees no query and stays one block.
    data = line()
    tree = build_qd_tree(data, [Query.from_ranges(data.schema, {"x": (10, 29)})], block_rows=10)
    assert (tree.root.column, tree.root.cut) == (0, 29.0)
    assert (tree.root.left.column, tree.root.left.cut) == (0, 9.0)
    assert tree.block_rows.tolist() == [10.0, 20.0, 70.0]


def test_qd_tree_query_reads_exactly_its_rows_when_blocks_allow():
    data = line()
    q = Query.from_ranges(data.schema, {"x": (10, 29)})
    assert build_qd_tree(data, [q], block_rows=10).cost(q) == 20.0


def test_qd_tree_keeps_blocks_at_least_block_rows():
    data = line()
    q = Query.from_ranges(data.schema, {"x": (10, 12)})  # cutting it out would leave 3 rows
    tree = build_qd_tree(data, [q], block_rows=10)
    assert tree.block_rows.min() >= 10


def test_multi_group_split_grows_a_small_group_to_one_block_about_its_centre():
    # 100 x 100 grid, query [10,14] x [10,14] (25 rows), b_min = 100 rows: centre 11.5,
    # radius 2.5, the 100 nearest rows by F are the 10 x 10 square 7..16 (F <= 4.5 / 2.5).
    data = grid()
    q = Query.from_ranges(data.schema, {"x": (10, 14), "y": (10, 14)})
    low = np.nextafter(data.values.min(axis=0), -np.inf)
    high = data.values.max(axis=0)
    split = multi_group_split(data.values, NodeQueries.of([q], 2), low, high, min_rows=100)
    members = data.values[split.members[0]]
    assert len(members) == 100
    assert members.min(axis=0).tolist() == [7.0, 7.0] and members.max(axis=0).tolist() == [16.0, 16.0]
    assert len(split.rest) == 9900
    assert split.cost == 100.0


def test_multi_group_split_merges_intersecting_queries_into_one_group():
    data = grid()
    a = Query.from_ranges(data.schema, {"x": (10, 30), "y": (10, 30)})
    b = Query.from_ranges(data.schema, {"x": (25, 40), "y": (25, 40)})
    low, high = np.nextafter(data.values.min(axis=0), -np.inf), data.values.max(axis=0)
    split = multi_group_split(data.values, NodeQueries.of([a, b], 2), low, high, min_rows=100)
    assert len(split.members) == 1
    assert data.values[split.members[0]].min(axis=0).tolist() == [10.0, 10.0]
    assert data.values[split.members[0]].max(axis=0).tolist() == [40.0, 40.0]


def test_paw_reads_one_block_for_a_small_query_it_has_seen():
    data = grid()
    q = Query.from_ranges(data.schema, {"x": (10, 14), "y": (10, 14)})
    tree = build_paw_tree(data, [q], block_rows=100, delta=0.0)
    assert isinstance(tree.root, GroupSplit)
    assert tree.cost(q) == 100.0


def test_paw_extended_queries_cover_a_shifted_future_query():
    # δ = 2% of the domain (99 * 0.02 = 1.98 grid steps): shifted by one step, the future
    # query still lies in the grown block (38..50 squared)
    data = grid()
    past = Query.from_ranges(data.schema, {"x": (40, 49), "y": (40, 49)})
    future = Query.from_ranges(data.schema, {"x": (41, 50), "y": (39, 48)})
    tree = build_paw_tree(data, [past], block_rows=100, delta=0.02)
    assert tree.touched(future).sum() == 1


def test_paw_refines_every_block_into_one_to_two_block_sizes():
    data = grid()
    q = Query.from_ranges(data.schema, {"x": (10, 14), "y": (10, 14)})
    rows = build_paw_tree(data, [q], block_rows=100).block_rows
    assert rows.min() >= 100 and rows.max() < 200


def test_paw_without_refinement_leaves_the_irregular_rest_whole():
    data = grid()
    q = Query.from_ranges(data.schema, {"x": (10, 14), "y": (10, 14)})
    tree = build_paw_tree(data, [q], block_rows=100, options=PawOptions(refine=False))
    assert sorted(tree.block_rows.tolist()) == [100.0, 9900.0]


def test_paw_alpha_must_exceed_one():
    with pytest.raises(ValueError, match="alpha"):
        PawOptions(alpha=1.0)


def test_paw_with_alpha_above_the_data_size_uses_only_axis_parallel_splits():
    data = grid()
    q = Query.from_ranges(data.schema, {"x": (10, 14), "y": (10, 14)})
    tree = build_paw_tree(data, [q], block_rows=100, options=PawOptions(alpha=1e9, refine=False))
    assert isinstance(tree.root, Split)


def test_delta_estimate_is_the_bottleneck_of_the_best_matching():
    # older: [10,20] and [50,60]; newer: [52,61] and [11,20]: the matching pairs them crosswise,
    # the larger shift being 2 of the domain's 100
    data = LayoutData.from_columns({"x": np.arange(101.0)})
    r = lambda lo, hi: Query.from_ranges(data.schema, {"x": (lo, hi)})  # noqa: E731
    assert estimate_delta(data, [r(10, 20), r(50, 60), r(52, 61), r(11, 20)]) == pytest.approx(0.02)


def mixed_history(data: LayoutData) -> list[Query]:
    """Two templates interleaved so that the time halves hold 4 x + 2 y and 2 x + 4 y: template
    x drifts by at most 2 (of 99), template y by at most 5 (of 99)."""
    x = lambda lo: Query.from_ranges(data.schema, {"x": (lo, lo + 9)})  # noqa: E731
    y = lambda lo: Query.from_ranges(data.schema, {"y": (lo, lo + 9)})  # noqa: E731
    return [x(10), x(60), x(30), y(20), x(12), y(75), y(50), y(25), x(62), y(80), x(31), y(55)]


def test_delta_of_a_mixed_history_is_the_whole_domain_but_each_templates_own_is_small():
    data = grid()
    history = mixed_history(data)
    assert estimate_delta(data, history) >= 0.5  # halves that match only across templates
    assert template_deltas(data, history).tolist() == pytest.approx([2.0, 5.0])


def test_each_template_gets_the_delta_its_own_halves_give():
    data = grid()
    history = mixed_history(data)
    for column, name in enumerate(("x", "y")):
        own = [q for q in history if np.isfinite(q.bounding_box()[0][column])]
        assert template_deltas(data, history)[column] == pytest.approx(estimate_delta(data, own) * 99)


def test_a_template_seen_once_takes_the_largest_delta_of_the_others():
    data = grid()
    x = lambda lo: Query.from_ranges(data.schema, {"x": (lo, lo + 9)})  # noqa: E731
    once = Query.from_ranges(data.schema, {"y": (40, 49)})
    assert template_deltas(data, [x(10), once, x(60), x(13), x(61)]).tolist() == pytest.approx([3.0, 3.0])


def test_paw_on_per_template_delta_reads_less_for_the_mixed_history_than_on_the_whole_domain():
    data = grid()
    history = mixed_history(data)
    whole = build_paw_tree(data, history, block_rows=200, delta=estimate_delta(data, history))
    per_template = build_paw_tree(data, history, block_rows=200, delta=template_deltas(data, history))
    assert sum(per_template.cost(q) for q in history) < sum(whole.cost(q) for q in history)


def test_storage_tuner_copies_the_query_that_gains_most_per_row():
    # one block of 100 rows; a query reading 10 of them gains (100 - 10) / 10 from a copy
    data = line()
    q = Query.from_ranges(data.schema, {"x": (0, 9)})
    from skipstone.layout import build_range_tree

    tuned = tune_storage(build_range_tree(data, "x", block_rows=100), data, [q], budget_rows=10)
    assert tuned.extra_rows == 10.0
    assert tuned.cost(q) == 10.0


def test_storage_tuner_respects_the_budget():
    data = line()
    q = Query.from_ranges(data.schema, {"x": (0, 9)})
    from skipstone.layout import build_range_tree

    assert tune_storage(build_range_tree(data, "x", block_rows=100), data, [q], budget_rows=9).extra_rows == 0.0


def test_paw_query_free_in_some_columns_does_not_read_the_irregular_rest():
    # The group box is cut to the sample's bounding box in z; a query with no bound on z must
    # still fall wholly inside the group, not into slabs beyond the box left to the rest.
    x, y = np.meshgrid(np.arange(100), np.arange(100), indexing="ij")
    data = LayoutData.from_columns({"x": x.ravel(), "y": y.ravel(), "z": (x * 7 + y).ravel() % 13})
    q = Query.from_ranges(data.schema, {"x": (10, 14), "y": (10, 14)})
    tree = build_paw_tree(data, [q], block_rows=100, options=PawOptions(refine=False))
    assert tree.cost(q) == 100.0


def test_a_box_bounded_on_one_side_of_a_column_with_infinite_codes_grows_to_a_finite_bound():
    # NULL and NaN are encoded as -inf and +inf: the box x <= 10 has an infinite lower side,
    # so its centre was infinite and the grown bound NaN (or the doubling never ended)
    from skipstone.layout.builders.paw_splits import _BoxIndex, _grow_to_block

    x = np.arange(100.0)
    x[::20] = -np.inf
    index = _BoxIndex(x[:, None])
    low, high = _grow_to_block(index, np.array([[-np.inf]]), np.array([[10.0]]), np.array([-np.inf]),
                               np.array([np.inf]), min_rows=30)
    assert low[0, 0] == -np.inf and np.isfinite(high[0, 0])
    assert len(index.rows_in(low[0], high[0])) >= 30


def test_a_box_over_a_column_with_no_finite_value_stays_as_drawn():
    # Every x NULL (-inf) but one: no finite row lies near the box, whose window stays empty
    # however far it grows; the box is left as the query drew it (it failed with an IndexError).
    from skipstone.layout.builders.paw_splits import _BoxIndex, _grow_to_block

    x = np.full(40, -np.inf)
    index = _BoxIndex(x[:, None])
    low, high = _grow_to_block(index, np.array([[2.0]]), np.array([[5.0]]), np.array([-np.inf]),
                               np.array([np.inf]), min_rows=10)
    assert (low[0, 0], high[0, 0]) == (2.0, 5.0)

