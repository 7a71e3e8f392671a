"""PAW's two plugins (§V): precise descriptors and the storage tuner.

Precise descriptors replace a block's single region by a few MBRs that cover its rows, so a
query passing through the empty parts of the region skips the block. The storage tuner spends
spare storage on redundant copies of the rows of heavily read query regions.

>>> import numpy as np
>>> from skipstone.layout.schema import LayoutData
>>> from skipstone.layout.builders.data_aware import build_range_tree
>>> from skipstone.layout.queries import Query
>>> data = LayoutData.from_columns({"x": np.array([0.0, 1, 2, 3, 96, 97, 98, 99])})
>>> tree = build_range_tree(data, "x", block_rows=8)          # one block, region = everything
>>> gap = Query.from_ranges(data.schema, {"x": (10, 90)})
>>> tree.cost(gap), with_precise_descriptors(tree, data, mbrs_per_block=2).cost(gap)
(8.0, 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from skipstone.layout.layout import Layout
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.tree import PartitionTree


def with_precise_descriptors(tree: PartitionTree, data: LayoutData, mbrs_per_block: int = 3) -> PartitionTree:
    """The tree with every leaf described by up to `mbrs_per_block` MBRs of its rows in
    `data`, found R-tree style: split the largest group at the median of its widest column.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import KdTree, with_precise_descriptors
    >>> tree = with_precise_descriptors(KdTree(block_rows=1000).build(data, 1000, 8000), data, mbrs_per_block=2)
    >>> len(tree.leaves[0].mbrs) <= 2
    True
    """
    if mbrs_per_block < 1:
        raise ValueError(f"mbrs_per_block must be at least 1, got {mbrs_per_block}")
    positions = tree.route(data)
    order = np.argsort(positions, kind="stable")
    starts = np.searchsorted(positions[order], np.arange(tree.block_count + 1))
    finite = np.where(np.isfinite(data.values), data.values, np.nan)
    spread = np.maximum(np.nanmax(finite, axis=0) - np.nanmin(finite, axis=0), 1e-12) if data.rows else np.ones(data.schema.width)
    mbrs_by_position = [
        _mbrs(data.values[order[starts[p] : starts[p + 1]]], mbrs_per_block, spread) for p in range(tree.block_count)
    ]
    counter = iter(mbrs_by_position)
    return tree.with_leaves(lambda leaf: replace(leaf, mbrs=next(counter)))


def _mbrs(rows: np.ndarray, count: int, spread: np.ndarray) -> tuple:
    if len(rows) == 0:
        width = rows.shape[1]
        return ((tuple([0.0] * width), tuple([0.0] * width)),)  # an empty box: nothing to read
    groups = [rows]
    while len(groups) < count:
        k = max(range(len(groups)), key=lambda i: len(groups[i]))
        g = groups[k]
        if len(g) < 2:
            break
        d = int(np.argmax((g.max(axis=0) - g.min(axis=0)) / spread))
        order = np.argsort(g[:, d], kind="stable")
        half = len(g) // 2
        groups[k : k + 1] = [g[order[:half]], g[order[half:]]]
    return tuple((tuple(np.nextafter(g.min(axis=0), -np.inf).tolist()), tuple(g.max(axis=0).tolist())) for g in groups)


@dataclass(frozen=True, eq=False)
class RedundantPartitions:
    """A layout plus redundant partitions: a query lying inside one reads only that copy.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import Range, RowsRead
    >>> tree = Range(columns=["b"], block_rows=1000).build(data, 1000, 8000)   # ordered by b, queried on a
    >>> from skipstone.layout import tune_storage
    >>> copies = tune_storage(tree, data, [query], budget_rows=1000)
    >>> copies.extra_rows, copies.cost(query), tree.cost(query)
    (1000.0, 1000.0, 8000.0)
    """

    base: Layout
    low: np.ndarray  # (copies, columns)
    high: np.ndarray
    rows: np.ndarray

    @property
    def extra_rows(self) -> float:
        """Rows stored in the redundant copies."""
        return float(self.rows.sum())

    def cost(self, query: Query) -> float:
        """Rows read by ``query``: its base blocks, or one redundant copy when that is cheaper."""
        return min(self.base.cost(query), self._copy_cost(query))

    @property
    def block_count(self) -> int:
        """The base layout's blocks plus the copies."""
        return self.base.block_count + len(self.rows)

    def touched(self, query: Query) -> np.ndarray:
        """Base blocks, then copies: the one copy a query reads when it is cheaper than its
        base blocks (what `cost` charges), else the base blocks it reads."""
        out = np.zeros(self.block_count, dtype=bool)
        copy = self._copy_cost(query)
        if copy < self.base.cost(query):
            fits = np.flatnonzero(self._inside(query) & (self.rows == copy))
            out[self.base.block_count + fits[0]] = True
        else:
            out[: self.base.block_count] = self.base.touched(query)
        return out

    def with_counts(self, data: LayoutData, scale: float = 1.0) -> RedundantPartitions:
        """The base layout's counts from `data`; the copies were sized from the table already."""
        return replace(self, base=self.base.with_counts(data, scale))

    def _copy_cost(self, query: Query) -> float:
        if len(self.rows) == 0 or query.boxes.is_empty:
            return np.inf
        inside = self._inside(query)
        return float(self.rows[inside].min()) if inside.any() else np.inf

    def _inside(self, query: Query) -> np.ndarray:
        """Per copy: whether every box of the query lies within it."""
        inside = np.ones(len(self.rows), dtype=bool)
        for k in range(query.boxes.count):
            inside &= np.all((query.boxes.low[k] >= self.low) & (query.boxes.high[k] <= self.high), axis=1)
        return inside


def tune_storage(layout: Layout, data: LayoutData, worst_case: Sequence[Query], budget_rows: float, scale: float = 1.0) -> RedundantPartitions:
    """Greedy storage tuner (Equation 5): add the copy RP_j of query q*_j's rows with the best
    gain per row, sum over q*_i inside RP_j of (Cost(P, q*_i) - |RP_j|) / |RP_j|, until the
    budget is spent; each pick lowers the current cost of the queries it serves.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import Range, RowsRead
    >>> tree = Range(columns=["b"], block_rows=1000).build(data, 1000, 8000)   # ordered by b, queried on a
    >>> from skipstone.layout import tune_storage
    >>> copies = tune_storage(tree, data, [query], budget_rows=1000)
    >>> copies.block_count, copies.cost(query)
    (9, 1000.0)
    """
    boxes = [q.boxes.bounding_box() for q in worst_case]
    sizes = np.array([q.matches(data).sum() * scale for q in worst_case], dtype=np.float64)
    current = np.array([layout.cost(q) for q in worst_case], dtype=np.float64)
    n = len(worst_case)
    inside = np.zeros((n, n), dtype=bool)  # inside[i, j]: q*_i lies within RP_j
    for i in range(n):
        for j in range(n):
            if not boxes[i].is_empty and not boxes[j].is_empty:
                inside[i, j] = bool(np.all(boxes[i].low[0] >= boxes[j].low[0]) and np.all(boxes[i].high[0] <= boxes[j].high[0]))
    chosen: list[int] = []
    spent = 0.0
    while True:
        saving = np.where(inside, np.maximum(current[:, None] - sizes[None, :], 0.0), 0.0).sum(axis=0)
        gain = np.where(sizes > 0, saving / np.maximum(sizes, 1e-12), 0.0)
        gain[chosen] = 0.0
        gain[spent + sizes > budget_rows] = 0.0
        j = int(np.argmax(gain))
        if gain[j] <= 0:
            break
        chosen.append(j)
        spent += sizes[j]
        current = np.where(inside[:, j], np.minimum(current, sizes[j]), current)
    width = data.schema.width
    low = np.array([boxes[j].low[0] for j in chosen]).reshape(-1, width)
    high = np.array([boxes[j].high[0] for j in chosen]).reshape(-1, width)
    return RedundantPartitions(layout, low, high, sizes[chosen])
