"""Qd-tree, greedy variant (Yang et al., SIGMOD 2020), as PAW compares against it.

Candidate cuts are the boundaries of the workload's query boxes. At every node the greedy
takes the cut that lets the queries skip the most rows, keeping at least block_rows on each
side, and stops when no cut reduces the rows read.

>>> import numpy as np
>>> from skipstone.layout.schema import LayoutData
>>> from skipstone.layout.queries import Query
>>> data = LayoutData.from_columns({"x": np.arange(100.0)})
>>> q = Query.from_ranges(data.schema, {"x": (10, 29)})
>>> [(s.column, s.cut) for s in [build_qd_tree(data, [q], block_rows=10).root]]
[(0, 29.0)]
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from skipstone.layout.builders.median import check_block_rows, sample_scale
from skipstone.layout.builders.node_queries import NodeQueries, best_axis_cut, query_bound_cuts
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.tree import Leaf, Node, PartitionTree, Split, renumber


def build_qd_tree(
    sample: LayoutData, queries: Sequence[Query], block_rows: float, total_rows: float | None = None
) -> PartitionTree:
    """A tree whose cuts come from the queries' own boundaries.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import build_qd_tree
    >>> tree = build_qd_tree(data, [query], block_rows=1000)
    >>> tree.block_count, tree.cost(query)
    (2, 1000.0)
    """
    check_block_rows(block_rows)
    scale = sample_scale(sample.rows, total_rows)
    width = sample.schema.width
    builder = _Greedy(sample.values, scale, block_rows / scale)
    root = builder.grow(np.arange(sample.rows), np.full(width, -np.inf), np.full(width, np.inf), NodeQueries.of(queries, width))
    return PartitionTree(sample.schema, renumber(root))


class _Greedy:
    def __init__(self, values: np.ndarray, scale: float, min_rows: float) -> None:
        self.values, self.scale, self.min_rows = values, scale, min_rows

    def grow(self, rows: np.ndarray, low: np.ndarray, high: np.ndarray, queries: NodeQueries) -> Node:
        if len(rows) < 2 * self.min_rows or queries.is_empty:
            return Leaf(0, len(rows) * self.scale)
        values = self.values[rows]
        candidates = [query_bound_cuts(queries, d, low[d], high[d]) for d in range(values.shape[1])]
        best = best_axis_cut(values, queries, candidates, self.min_rows)
        if best is None or best.cost >= queries.count * len(rows):
            return Leaf(0, len(rows) * self.scale)
        goes_left = values[:, best.column] <= best.cut
        left_high, right_low = high.copy(), low.copy()
        left_high[best.column], right_low[best.column] = best.cut, best.cut
        return Split(
            best.column,
            best.cut,
            self.grow(rows[goes_left], low, left_high, queries.clip(low, left_high)),
            self.grow(rows[~goes_left], right_low, high, queries.clip(right_low, high)),
        )
