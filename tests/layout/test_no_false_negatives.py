"""Every layout reads every block that holds a matching row: skipping never loses rows."""

from __future__ import annotations

import json

import numpy as np
import pytest

from skipstone.layout import LayoutData, layout_from_json, layout_to_json
from skipstone.layout.adaptive.optimizer import best_plan
from skipstone.layout.adaptive.window import QueryWindow
from benchmarks.layout_sim.methods import METHODS, BuildContext
from benchmarks.layout_sim.templates import iot_queries
from benchmarks.layout_sim.datasets import weblog
from benchmarks.layout_sim.workloads import delta_similar, skewed_ranges, uniform_ranges


@pytest.fixture(scope="module")
def table() -> LayoutData:
    return weblog(6000, seed=3)


@pytest.fixture(scope="module")
def queries(table):
    dims = ["lat", "lon", "bytes"]
    history = uniform_ranges(table, 10, dims, max_range=0.3, seed=1) + skewed_ranges(table, 10, dims, max_range=0.3, seed=2)
    return history, delta_similar(table, history, 0.02, seed=4) + iot_queries(table, 10, seed=5)


@pytest.mark.parametrize("method", sorted(set(METHODS) - {"paw-tuned"}))  # copies: the test below
def test_every_block_with_a_matching_row_is_read(method, table, queries):
    history, future = queries
    context = BuildContext(table, table.sample(3000, 1), history, 150, "ts", None, delta=0.02)
    layout = METHODS[method](context).with_counts(table)
    positions = layout.route(table)
    for q in future + history:
        needed = np.unique(positions[q.matches(table)])
        assert layout.touched(q)[needed].all(), f"{method} skipped a block holding matching rows"


@pytest.mark.parametrize("method", ["kd", "paw", "hilbert"])
def test_json_round_trip_routes_and_looks_up_the_same(method, table, queries):
    history, future = queries
    context = BuildContext(table, table, history, 150, "ts", None, delta=0.02)
    layout = METHODS[method](context).with_counts(table)
    again = layout_from_json(json.loads(json.dumps(layout_to_json(layout))))
    assert np.array_equal(again.route(table), layout.route(table))
    assert all(np.array_equal(again.touched(q), layout.touched(q)) for q in future)


def test_adaptive_plans_keep_every_matching_row_reachable(table, queries):
    _, future = queries
    context = BuildContext(table, table, [], 150, "ts", None)
    tree = METHODS["amoeba"](context).with_counts(table)
    window = QueryWindow(horizon=1000)
    changed = 0
    for t, q in enumerate(future * 3):
        window = window.add(t, q)
        plan = best_plan(tree, window, q, table.sample(2000, t))
        if plan is not None:
            tree, changed = plan.tree.with_counts(table), changed + 1
        positions = tree.route(table)
        assert tree.touched(q)[np.unique(positions[q.matches(table)])].all()
    assert changed > 0  # the workload did make the optimizer act


def test_a_query_read_from_a_copy_finds_every_matching_row_there(table, queries):
    # PAW's storage tuner: a query inside a redundant copy reads only the copy, so every row it
    # matches must lie in the copy's box; other queries read their base blocks as usual
    history, future = queries
    context = BuildContext(table, table.sample(3000, 1), history, 150, "ts", None, delta=0.02)
    tuned = METHODS["paw-tuned"](context).with_counts(table)
    base_positions = tuned.base.route(table)
    served_by_copy = 0
    for q in future + history:
        read, matching = tuned.touched(q), q.matches(table)
        copies = np.flatnonzero(read[tuned.base.block_count :])
        if len(copies):
            served_by_copy += 1
            k = copies[0]
            in_copy = np.all((table.values > tuned.low[k]) & (table.values <= tuned.high[k]), axis=1)
            assert in_copy[matching].all(), "a copy missed a matching row"
        else:
            assert read[np.unique(base_positions[matching])].all(), "paw-tuned skipped a block holding matching rows"
    assert served_by_copy > 0
