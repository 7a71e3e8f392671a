"""The queries a node sees, and the search for the best axis-parallel cut under them.

Workload-aware builders (Qd-tree, PAW) look at one node at a time: its sample rows and the
boxes of the queries that reach it, clipped to its region. The cost of a layout for those
queries is Equation 1 of PAW: every query pays the rows of every part it touches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from skipstone.layout.queries import Query


@dataclass(frozen=True, eq=False)
class NodeQueries:
    """Query boxes clipped to a node's region; `owner[k]` is the query box k belongs to."""

    low: np.ndarray
    high: np.ndarray
    owner: np.ndarray

    @staticmethod
    def of(queries: Sequence[Query], width: int) -> NodeQueries:
        lows, highs, owners = [], [], []
        for i, q in enumerate(queries):
            lows.append(q.boxes.low)
            highs.append(q.boxes.high)
            owners.append(np.full(q.boxes.count, i))
        if not lows:
            return NodeQueries(np.empty((0, width)), np.empty((0, width)), np.empty(0, np.int64))
        return NodeQueries(np.vstack(lows), np.vstack(highs), np.concatenate(owners).astype(np.int64))

    @property
    def count(self) -> int:
        """How many distinct queries reach the node."""
        return int(len(np.unique(self.owner)))

    @property
    def is_empty(self) -> bool:
        return len(self.owner) == 0

    def clip(self, low: np.ndarray, high: np.ndarray) -> NodeQueries:
        """The boxes cut down to the region (low, high], dropping those that miss it."""
        lo = np.maximum(self.low, low)
        hi = np.minimum(self.high, high)
        keep = np.all(lo < hi, axis=1)
        return NodeQueries(lo[keep], hi[keep], self.owner[keep])

    def extended(self, delta: np.ndarray) -> NodeQueries:
        """PAW's worst-case workload Q*_F: every box grown by delta on every side (§IV-A)."""
        return NodeQueries(self.low - delta, self.high + delta, self.owner)


@dataclass(frozen=True)
class AxisCut:
    column: int
    cut: float
    cost: float  # rows read by the node's queries after the cut


def best_axis_cut(
    values: np.ndarray,
    queries: NodeQueries,
    candidates: Sequence[np.ndarray],
    min_rows: float,
) -> AxisCut | None:
    """The cut (over all columns, among `candidates[column]`) that minimises
    sum over queries of the rows of the sides they touch, leaving at least `min_rows` sample
    rows on each side; None when no candidate is feasible."""
    rows = len(values)
    best: AxisCut | None = None
    _, query_index = np.unique(queries.owner, return_inverse=True)
    n_queries = int(query_index.max()) + 1 if len(query_index) else 0
    for column, cuts in enumerate(candidates):
        if len(cuts) == 0:
            continue
        ordered = np.sort(values[:, column])
        cuts = np.unique(cuts)
        left = np.searchsorted(ordered, cuts, side="right")
        feasible = (left >= min_rows) & (rows - left >= min_rows)
        if not feasible.any():
            continue
        cuts, left = cuts[feasible], left[feasible]
        if n_queries:
            touch_left = _per_query(queries.low[:, column][:, None] < cuts[None, :], query_index, n_queries)
            touch_right = _per_query(queries.high[:, column][:, None] > cuts[None, :], query_index, n_queries)
            cost = (touch_left * left[None, :]).sum(axis=0) + (touch_right * (rows - left)[None, :]).sum(axis=0)
        else:
            cost = np.zeros(len(cuts))
        k = int(np.argmin(cost))
        if best is None or cost[k] < best.cost:
            best = AxisCut(column, float(cuts[k]), float(cost[k]))
    return best


def _per_query(box_hits: np.ndarray, query_index: np.ndarray, n_queries: int) -> np.ndarray:
    """Collapse per-box hits (boxes x cuts) to per-query hits: a query touches a side if any
    of its boxes does."""
    out = np.zeros((n_queries, box_hits.shape[1]), dtype=np.int64)
    np.maximum.at(out, query_index, box_hits.astype(np.int64))
    return out


def query_bound_cuts(queries: NodeQueries, column: int, low: float, high: float) -> np.ndarray:
    """Cuts at the query boundaries strictly inside the region: a box (lo, hi] is separated by
    cutting at lo (rows <= lo are outside) and at hi (Qd-tree's candidate cuts)."""
    bounds = np.concatenate([queries.low[:, column], queries.high[:, column]])
    return bounds[(bounds > low) & (bounds < high) & np.isfinite(bounds)]
