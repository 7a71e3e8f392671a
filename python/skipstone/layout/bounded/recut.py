"""A unit's new subtree: cut where the hot queries cut, then k-d on their columns or the unit's.

Over the sample rows of the unit's blocks, the Qd-tree's greedy (``builders/node_queries.py``)
takes the query boundary that lets the hot queries skip the most rows while leaving a block's
rows on each side; where no boundary helps any more, PAW's data-aware refinement (the k-d tree
of ``builders/data_aware.py``) cuts what is left at medians down to blocks of
``[block_rows, 2 block_rows)``. Where hot queries still read, it cuts on their columns first
(``hot``, most frequent first): the boundaries fit the queries seen, the medians the next
queries of the same template, which move. Where no hot query reads, it cuts on the columns the
replaced subtree cut on first (``kept``): the upfront tree spread its cuts over the columns for
the queries nobody has seen yet, and a re-layout for today's queries should not forget them.

The subtree's leaves are all numbered 0 (the policy numbers them after every existing block)
and hold the unit's rows in proportion to the sample rows that land in them.

>>> import numpy as np
>>> from skipstone.layout import LayoutData, Query
>>> from skipstone.layout.builders.node_queries import NodeQueries
>>> from skipstone.layout.tree import leaves_of
>>> data = LayoutData.from_columns({"x": np.arange(100.0), "y": np.arange(100.0) % 10})
>>> hot = NodeQueries.of([Query.from_ranges(data.schema, {"x": (0, 29)})] * 3, 2)
>>> node = recut(data.values, hot, rows=100.0, block_rows=20, hot_columns=[0], kept_columns=[1])
>>> node.column, node.cut, node.right.column, [leaf.rows for leaf in leaves_of(node)]   # the rest: on y
(0, 29.0, 1, [30.0, 35.0, 35.0])
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from skipstone.layout.builders.data_aware import kd_refine
from skipstone.layout.builders.median import too_small_to_cut
from skipstone.layout.builders.node_queries import NodeQueries, best_axis_cut, query_bound_cuts
from skipstone.layout.tree import Leaf, Node, Split, map_leaves


def recut(values: np.ndarray, hot: NodeQueries, rows: float, block_rows: float, hot_columns: Sequence[int],
          kept_columns: Sequence[int] = ()) -> Node:
    """A subtree over the sample rows ``values`` (rows x columns) standing for ``rows`` table
    rows, cut for the ``hot`` query boxes (clipped to the unit's region or not: boundaries
    outside the rows cannot be cut at), which bound ``hot_columns`` only; refined on
    ``hot_columns`` where hot queries read and on ``kept_columns`` (the replaced subtree's)
    first where none does."""
    if len(values) == 0:
        raise ValueError("a unit without sample rows cannot be re-laid out")
    if not hot_columns:
        raise ValueError("recut needs the hot queries' columns to refine on")
    hot_first = list(dict.fromkeys([*hot_columns, *kept_columns]))
    kept_first = list(dict.fromkeys([*kept_columns, *hot_columns]))
    scale = rows / len(values)
    width = values.shape[1]
    node = _Cutter(values, scale, block_rows, frozenset(hot_columns), hot_first, kept_first).grow(
        np.arange(len(values)), np.full(width, -np.inf), np.full(width, np.inf), hot)
    return map_leaves(node, lambda leaf: Leaf(0, leaf.rows))


class _Cutter:
    def __init__(self, values: np.ndarray, scale: float, block_rows: float, hot: frozenset[int], hot_first: list[int],
                 kept_first: list[int]) -> None:
        self.values, self.scale, self.block_rows, self.hot = values, scale, block_rows, hot
        self.hot_first, self.kept_first = hot_first, kept_first

    def grow(self, rows: np.ndarray, low: np.ndarray, high: np.ndarray, queries: NodeQueries) -> Node:
        if too_small_to_cut(len(rows), self.scale, self.block_rows) or queries.is_empty:
            return self.refine(rows, queries)
        here = self.values[rows]
        none = np.empty(0)
        # only the hot columns have boundaries to cut at; asking the others costs time on wide tables
        candidates = [query_bound_cuts(queries, d, low[d], high[d]) if d in self.hot else none
                      for d in range(here.shape[1])]
        best = best_axis_cut(here, queries, candidates, self.block_rows / self.scale)
        if best is None or best.cost >= queries.count * len(rows):  # no boundary lets a query skip rows
            return self.refine(rows, queries)
        goes_left = here[:, best.column] <= best.cut
        left_high, right_low = high.copy(), low.copy()
        left_high[best.column] = right_low[best.column] = best.cut
        return Split(best.column, best.cut,
                     self.grow(rows[goes_left], low, left_high, queries.clip(low, left_high)),
                     self.grow(rows[~goes_left], right_low, high, queries.clip(right_low, high)))

    def refine(self, rows: np.ndarray, queries: NodeQueries) -> Node:
        columns = self.kept_first if queries.is_empty else self.hot_first
        return kd_refine(self.values, rows, self.scale, self.block_rows, columns)
