"""Layouts priced as Spark skips them: by each block's min/max, estimated from the sample.

A reader skips a file by the min and max of its rows on each column (Parquet footers, the
MinMax index), not by the cuts of the tree that routed them there. The two differ most on
columns the tree never cut: a block cut on ship date holds a narrow range of receipt dates too
(a line is received within a month of shipping), and a block cut on quantity a narrow range of
extended prices. Priced by its cuts, a tree over many correlated columns looks as if it read
half as much again as it does (TPC-H SF 1, random pairs of six columns: Amoeba's tree over the
six reads 20 % of the rows, its cuts say 30 %; ``benchmarks/layout_spark/stats_pricing_check.py``), so a policy comparing it with a tree over
the queried columns sees a gain that is not there.

``StatsPricing.of(layout, sample)`` routes the sample through the layout and describes each
block by its cut descriptor clipped to the box of its sample rows: what the block's files'
statistics will say, give or take the extremes the sample missed (it sees a block's rows
through about 200 of them, so it errs a little towards reading less, alike for every layout).
A block holding fewer than ``min_rows`` sample rows keeps its cut descriptor alone.

>>> import numpy as np
>>> from skipstone.layout import LayoutData, Query, RowsRead, build_kd_tree
>>> x = np.arange(1000.0)
>>> data = LayoutData.from_columns({"x": x, "y": x + 5})     # y follows x
>>> tree = build_kd_tree(data, block_rows=100, columns=["x"])  # cut on x only
>>> q = Query.from_ranges(data.schema, {"y": (0, 129)})        # x in 0..124: the first block
>>> tree.cost(q, RowsRead()), StatsPricing.of(tree, data).cost(q, RowsRead())
(1000.0, 125.0)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skipstone.layout.boxes import block_bounding_boxes, touching
from skipstone.layout.cost_model import CostModel
from skipstone.layout.layout import Layout
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData

MIN_SAMPLE_ROWS = 8  # fewer sample rows than this say too little of a block's extremes


@dataclass(frozen=True, eq=False)
class StatsPricing:
    """A layout's blocks as their files' min/max will describe them: ``low``/``high`` are the
    boxes (half-open, as the layout's descriptors) and ``owner`` the block position of each;
    prices use the layout's own row counts.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query, build_kd_tree
    >>> data = LayoutData.from_columns({"x": np.arange(100.0), "y": np.arange(100.0) % 10})
    >>> tree = build_kd_tree(data, block_rows=50, columns=["x"])
    >>> priced = StatsPricing.of(tree, data)
    >>> priced.touched(Query.from_ranges(data.schema, {"x": (60, 70)})).tolist()
    [False, True]
    """

    layout: Layout
    low: np.ndarray
    high: np.ndarray
    owner: np.ndarray

    @staticmethod
    def of(layout: Layout, sample: LayoutData, min_rows: int = MIN_SAMPLE_ROWS,
           positions: np.ndarray | None = None) -> StatsPricing:
        """``layout`` described by its blocks' sample boxes within their cut descriptors
        (``positions``: ``layout.route(sample)``, when the caller has it)."""
        if sample.schema != layout.schema:
            raise ValueError("StatsPricing: the sample's schema differs from the layout's")
        d = layout.descriptors()
        low, high = clipped(d.low, d.high, d.owner, sample.values,
                            layout.route(sample) if positions is None and sample.rows else positions,
                            layout.block_count, min_rows)
        return StatsPricing(layout, low, high, d.owner)

    def touched(self, query: Query) -> np.ndarray:
        """A boolean per block position: its statistics cannot rule the query out."""
        hit = touching(self.low, self.high, query.boxes)
        out = np.zeros(self.layout.block_count, dtype=bool)
        out[self.owner[hit]] = True
        return out

    def cost(self, query: Query, model: CostModel | None = None) -> float:
        """What the query pays for the blocks it cannot skip: rows, or ``model``'s price of them."""
        rows = self.layout.block_rows[self.touched(query)]
        return float(rows.sum() if model is None else model.block_costs(rows).sum())


def clipped(low: np.ndarray, high: np.ndarray, owner: np.ndarray, values: np.ndarray, positions: np.ndarray | None,
            blocks: int, min_rows: int = MIN_SAMPLE_ROWS) -> tuple[np.ndarray, np.ndarray]:
    """Descriptor boxes (``owner``: each box's block) clipped to the box of their block's sample
    rows (``values``, routed to ``positions``) where the block holds ``min_rows`` of them; a box
    none of its block's rows fall in becomes empty.

    >>> import numpy as np
    >>> low, high = np.array([[0.0], [5.0]]), np.array([[5.0], [10.0]])
    >>> low, high = clipped(low, high, np.array([0, 1]), np.array([[1.0], [2.0], [9.0]]), np.array([0, 0, 1]), 2,
    ...                     min_rows=2)                     # block 1 holds one sample row: too few to clip
    >>> np.round(low.ravel(), 9).tolist(), high.ravel().tolist()
    ([1.0, 5.0], [2.0, 10.0])
    """
    low, high = low.copy(), high.copy()
    if positions is None or not len(values):
        return low, high
    counts = np.bincount(positions, minlength=blocks)
    box_low, box_high = block_bounding_boxes(values, positions, blocks)
    seen = counts[owner] >= min_rows  # per descriptor box: its block's sample says enough
    low[seen] = np.maximum(low[seen], box_low[owner[seen]])
    high[seen] = np.minimum(high[seen], box_high[owner[seen]])
    empty = (low >= high).any(axis=1)
    low[empty], high[empty] = np.inf, -np.inf
    return low, high
