"""Which blocks the hot queries straddle, and which are well clustered ("sealed").

A query straddles a block when it reads the block for few of its rows. The fraction is
estimated on the sample: of the sample rows routed to the block, how many lie in the query's
boxes. A block is sealed, and left alone, when no hot query reads it or when the hot queries
that read it find mostly matching rows there (at least ``seal_fraction`` of what they read,
summed over them); re-laying it out could save little. A block the hot queries read but which
holds no sample row cannot be judged or re-cut, and is sealed too.

>>> import numpy as np
>>> from skipstone.layout import LayoutData, Query, build_kd_tree
>>> data = LayoutData.from_columns({"x": np.arange(100.0)})
>>> tree = build_kd_tree(data, block_rows=50)                    # x <= 49 | x > 49
>>> use = hot_block_use(tree, data, [Query.from_ranges(data.schema, {"x": (40, 99)})])
>>> use.reads.tolist(), use.matches.tolist(), use.straddled(0.5).tolist()
([50.0, 50.0], [10.0, 50.0], [True, False])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.stats_pricing import StatsPricing
from skipstone.layout.tree import PartitionTree


@dataclass(frozen=True, eq=False)
class BlockUse:
    """Per block position, summed over the hot queries that read the block: the sample rows
    they read there and the sample rows of those that match them."""

    reads: np.ndarray
    matches: np.ndarray

    def straddled(self, seal_fraction: float) -> np.ndarray:
        """The blocks to consider re-laying out: read by hot queries, mostly for rows they
        do not want. Every other block is sealed."""
        return (self.reads > 0) & (self.matches < seal_fraction * self.reads)


@dataclass(frozen=True, eq=False)
class QueryBlockUse:
    """``BlockUse`` per query (rows: queries, columns: block positions), to sum over any
    subset of them without looking at the sample again."""

    reads: np.ndarray
    matches: np.ndarray

    def of(self, queries: Sequence[int]) -> BlockUse:
        """The use of the queries at these rows, summed."""
        rows = np.asarray(queries, dtype=np.int64)
        return BlockUse(self.reads[rows].sum(axis=0), self.matches[rows].sum(axis=0))


def query_block_use(tree: PartitionTree, sample: LayoutData, queries: Sequence[Query],
                    positions: np.ndarray | None = None, pricing: StatsPricing | None = None) -> QueryBlockUse:
    """How each query uses each block of ``tree``, estimated on ``sample``; ``positions`` is
    ``tree.route(sample)`` when the caller has it. A query reads the blocks ``pricing`` says its
    statistics cannot rule out (None: those its cuts cannot)."""
    positions = tree.route(sample) if positions is None else positions
    reader = tree if pricing is None else pricing
    per_block = np.bincount(positions, minlength=tree.block_count).astype(np.float64)
    reads = np.zeros((len(queries), tree.block_count))
    matches = np.zeros((len(queries), tree.block_count))
    for k, query in enumerate(queries):
        reads[k] = np.where(reader.touched(query), per_block, 0.0)
        matches[k] = np.bincount(positions[_matching(sample.values, query)], minlength=tree.block_count)
    return QueryBlockUse(reads, matches)


def hot_block_use(tree: PartitionTree, sample: LayoutData, hot: Sequence[Query],
                  positions: np.ndarray | None = None) -> BlockUse:
    """How the hot queries (repeats count each time) use each block of ``tree``, estimated on
    ``sample``."""
    return query_block_use(tree, sample, hot, positions).of(range(len(hot)))


def _matching(values: np.ndarray, query: Query) -> np.ndarray:
    """``query.matches`` testing only the columns each box bounds (queries bound a few of many)."""
    inside = np.zeros(len(values), dtype=bool)
    for low, high in zip(query.boxes.low, query.boxes.high):
        bounded = np.flatnonzero(np.isfinite(low) | np.isfinite(high))
        part = values[:, bounded]
        inside |= np.all((part > low[bounded]) & (part <= high[bounded]), axis=1)
    return inside
