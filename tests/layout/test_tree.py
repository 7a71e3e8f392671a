"""Partitioning trees: routing rows, finding the blocks a query reads, JSON round trips."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from skipstone.layout import (
    Column,
    ColumnKind,
    Group,
    GroupSplit,
    LayoutData,
    Leaf,
    PartitionTree,
    Query,
    Schema,
    Split,
    layout_from_json,
    layout_to_json,
)

XY = Schema((Column("x", ColumnKind.NUMERIC), Column("y", ColumnKind.NUMERIC)))
INF = math.inf


def grid_tree() -> PartitionTree:
    #        x <= 5
    #   y <= 5     y <= 2
    #  b0   b1    b2   b3
    return PartitionTree(
        XY,
        Split(0, 5.0, Split(1, 5.0, Leaf(0, 10), Leaf(1, 20)), Split(1, 2.0, Leaf(2, 30), Leaf(3, 40))),
    )


def paw_tree() -> PartitionTree:
    # group A: 0 < x <= 2, 0 < y <= 2 ; group B: 6 < x <= 8 (any y) ; rest: everything else
    return PartitionTree(
        XY,
        GroupSplit(
            (Group((0.0, 0.0), (2.0, 2.0), Leaf(0, 5)), Group((6.0, -INF), (8.0, INF), Leaf(1, 7))),
            Leaf(2, 11),
        ),
    )


def rows(*points: tuple[float, float]) -> LayoutData:
    return LayoutData(XY, np.array(points, dtype=float))


def test_rows_at_or_below_the_cut_go_left():
    assert grid_tree().route(rows((5.0, 5.0), (5.0, 5.5), (5.5, 2.0), (9.0, 9.0))).tolist() == [0, 1, 2, 3]


def test_group_split_routes_to_the_first_group_holding_the_row_and_the_rest_elsewhere():
    positions = paw_tree().route(rows((1.0, 1.0), (7.0, 100.0), (3.0, 1.0), (0.0, 1.0), (2.0, 2.0)))
    assert positions.tolist() == [0, 1, 2, 2, 0]


def test_routing_matches_a_row_by_row_walk_on_random_data():
    rng = np.random.default_rng(3)
    data = rows(*rng.uniform(-1, 10, size=(5000, 2)).tolist())
    def walk(p):
        if 0 < p[0] <= 2 and 0 < p[1] <= 2:
            return 0
        return 1 if 6 < p[0] <= 8 else 2
    assert paw_tree().route(data).tolist() == [walk(p) for p in data.values]


def test_query_reads_only_the_leaves_its_boxes_reach():
    q = Query.from_ranges(XY, {"x": (6.0, 7.0), "y": (0.0, 1.0)})
    assert grid_tree().blocks_for(q).tolist() == [2]
    assert grid_tree().cost(q) == 30


def test_query_on_the_cut_value_reads_only_the_left_side():
    q = Query.from_json({"column": "x", "op": "<=", "value": 5.0}, XY)
    assert grid_tree().blocks_for(q).tolist() == [0, 1]


def test_query_inside_a_group_box_skips_the_irregular_rest():
    q = Query.from_ranges(XY, {"x": (0.5, 1.5), "y": (0.5, 1.5)})
    assert paw_tree().blocks_for(q).tolist() == [0]


def test_query_straddling_a_group_box_reads_the_rest_too():
    q = Query.from_ranges(XY, {"x": (1.5, 3.0), "y": (0.5, 1.5)})
    assert paw_tree().blocks_for(q).tolist() == [0, 2]


def test_precise_descriptor_mbrs_let_a_query_skip_an_empty_corner():
    tree = grid_tree().with_leaves(
        lambda leaf: Leaf(leaf.block, leaf.rows, (((-INF, -INF), (1.0, 1.0)),)) if leaf.block == 0 else leaf
    )
    q = Query.from_ranges(XY, {"x": (3.0, 4.0), "y": (3.0, 4.0)})
    assert tree.blocks_for(q).tolist() == []
    assert grid_tree().blocks_for(q).tolist() == [0]


def test_with_counts_counts_routed_rows_scaled_by_the_sample_rate():
    tree = grid_tree().with_counts(rows((1, 1), (1, 1), (9, 9)), scale=10)
    assert tree.block_rows.tolist() == [20.0, 0.0, 0.0, 10.0]


def test_allocation_is_data_fraction_times_fanout_per_attribute():
    # x cuts all 100 rows: 2 * 1.0; y cuts 30/100 and 70/100 of them: 2 * 0.3 + 2 * 0.7
    assert grid_tree().allocation().tolist() == [2.0, 2.0]


@pytest.mark.parametrize("tree", [grid_tree(), paw_tree()], ids=["splits", "groups"])
def test_json_round_trip_keeps_the_tree(tree):
    document = json.loads(json.dumps(layout_to_json(tree)))
    assert document["version"] == 1
    assert layout_from_json(document).root == tree.root


def test_reading_a_newer_format_version_fails_clearly():
    document = layout_to_json(grid_tree()) | {"version": 99}
    with pytest.raises(ValueError, match="version 99"):
        layout_from_json(document)


def test_json_names_columns_not_positions():
    assert layout_to_json(grid_tree())["root"]["column"] == "x"
