"""Layouts priced as a reader skips their files (``StatsPricing``): by each block's min/max on
every column, estimated from the sample. Checked against the blocks a query truly must read,
by hand and at random, and through the policy that prices with it (``AutoColumns``): a table
whose cut column already clusters the queried one is left alone."""
from __future__ import annotations

import numpy as np
import pytest

from skipstone.layout import (Amoeba, AutoColumns, KdTree, LayoutData, Query, RowsRead, build_kd_tree,
                              choose_columns)
from skipstone.layout.boxes import block_bounding_boxes, touching
from skipstone.layout.stats_pricing import MIN_SAMPLE_ROWS, StatsPricing


def correlated(rows: int = 8000, seed: int = 3) -> LayoutData:
    """``ship`` uniform, ``receipt`` within 30 of it (a line arrives within a month), ``other`` unrelated."""
    rng = np.random.default_rng(seed)
    ship = rng.integers(0, 2500, rows).astype(float)
    return LayoutData.from_columns({"ship": ship, "receipt": ship + rng.integers(1, 31, rows),
                                    "other": rng.random(rows)})


def must_read(layout, data: LayoutData, query: Query) -> np.ndarray:
    """Per block: its rows' min/max box meets the query (what a reader with exact statistics reads)."""
    positions = layout.route(data)
    low, high = block_bounding_boxes(data.values, positions, layout.block_count)
    return touching(low, high, query.boxes)


def test_a_tree_cut_on_one_column_is_priced_by_the_range_its_blocks_hold_on_another():
    data = correlated()
    tree = build_kd_tree(data, block_rows=1000, columns=["ship"])  # 8 blocks of ship dates
    query = Query.from_ranges(data.schema, {"receipt": (0, 100)})  # receipts up to 100: ships up to 99
    blocks = must_read(tree, data, query)
    assert blocks.sum() == 1  # the first block alone holds ships below 99 (about 312 a block)
    assert tree.cost(query, RowsRead()) == data.rows  # its cuts say nothing of receipts
    assert StatsPricing.of(tree, data).cost(query, RowsRead()) == tree.block_rows[blocks].sum()


@pytest.mark.parametrize("seed", range(6))
def test_priced_on_all_rows_it_reads_exactly_the_blocks_statistics_cannot_skip(seed):
    data = correlated(seed=seed)
    rng = np.random.default_rng(seed)
    spec = [KdTree, Amoeba][seed % 2](block_rows=int(rng.integers(200, 1500)), columns=["ship", "other"])
    tree = spec.build(data, spec.block_rows, data.rows)
    priced = StatsPricing.of(tree, data)
    for _ in range(40):
        lo = rng.uniform(0, 2500)
        query = Query.from_ranges(data.schema, {"receipt": (lo, lo + rng.uniform(1, 400))})
        assert priced.touched(query).tolist() == must_read(tree, data, query).tolist()
        # and never a block holding a matching row left out
        holding = np.unique(tree.route(data)[query.matches(data)])
        assert priced.touched(query)[holding].all()


def test_a_block_the_sample_barely_sees_keeps_its_cut_descriptor():
    data = correlated()
    tree = build_kd_tree(data, block_rows=1000, columns=["ship"])
    sample = LayoutData(data.schema, data.values[np.argsort(data.values[:, 0])[: MIN_SAMPLE_ROWS - 1]])  # first block only
    query = Query.from_ranges(data.schema, {"receipt": (0, 100)})
    assert StatsPricing.of(tree, sample).touched(query).all()  # too few rows to say anything: cuts alone
    sample = LayoutData(data.schema, data.values[::4])
    assert StatsPricing.of(tree, sample).touched(query).sum() == 1


def test_a_table_whose_cut_column_clusters_the_queried_one_is_left_alone():
    """Cut on ship dates, queried on receipt dates: priced by its cuts, every query reads the
    whole table and a tree over receipts looks 8x cheaper; its files' statistics skip nearly as
    well already, so the policy that prices them keeps it."""
    data = correlated()
    tree = build_kd_tree(data, block_rows=500, columns=["ship"])
    rng = np.random.default_rng(1)
    queries = [Query.from_ranges(data.schema, {"receipt": (lo, lo + 150)}) for lo in rng.uniform(0, 2400, 60)]
    by_cuts = choose_columns(tree, queries, data, 500, RowsRead(), 1.0, by_stats=False)
    assert by_cuts is not None and by_cuts.columns == ("receipt",)
    assert by_cuts.gain_per_query > 0.7 * data.rows
    assert choose_columns(tree, queries, data, 500, RowsRead(), 1.0) is None
    policy = AutoColumns(block_rows=500, write_multiplier=1, cost_model=RowsRead(), force=True)
    assert policy.propose(tree, queries, data) is None
    assert AutoColumns(block_rows=500, write_multiplier=1, cost_model=RowsRead(), by_stats=False,
                       force=True).propose(tree, queries, data) is not None
