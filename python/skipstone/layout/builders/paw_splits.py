"""PAW's multi-group split (Algorithm 1): grouped partitions around clusters of queries and an
irregular partition for everything no query reads.

Queries whose boxes intersect are merged into one group; a group is the minimum bounding
rectangle of its queries. A group too small for a block is grown about its centre,
GP' = c ± f·r, with the smallest f that holds block_rows rows: rows are ranked by their
relative position F(x) = max_d |x_d - c_d| / r_d (Figure 8).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skipstone.layout.builders.node_queries import NodeQueries


@dataclass(frozen=True, eq=False)
class GroupedPartitions:
    low: np.ndarray  # (groups, columns): the grouped partitions' boxes, half-open (low, high]
    high: np.ndarray
    members: list[np.ndarray]  # per group: positions of its rows in the node's rows
    rest: np.ndarray  # positions of the irregular partition's rows
    cost: float  # rows read by the node's queries under this split


def multi_group_split(
    values: np.ndarray,
    queries: NodeQueries,
    region_low: np.ndarray,
    region_high: np.ndarray,
    min_rows: float,
    merge_overlaps: bool = True,
) -> GroupedPartitions | None:
    """Algorithm 1 over a node's sample rows; None when the split fails (groups still overlap
    after growing, or the irregular rest is smaller than a block). With `merge_overlaps`
    (ours, not the paper's) groups that overlap after growing are merged and grown again
    instead of failing the split."""
    if queries.is_empty:
        return None
    index = _BoxIndex(values)
    low, high = _merge_intersecting(queries.low, queries.high)
    for _ in range(len(low) + 1):
        low, high = _grow_to_block(index, low, high, region_low, region_high, min_rows)
        if _pairwise_disjoint(low, high):
            break
        if not merge_overlaps:
            return None
        low, high = _merge_intersecting(low, high)
    else:
        return None
    taken = np.zeros(len(values), dtype=bool)
    members = []
    for k in range(len(low)):
        inside = index.rows_in(low[k], high[k])
        inside = inside[~taken[inside]]  # a row belongs to the first group holding it
        taken[inside] = True
        members.append(np.sort(inside))
    rest = np.flatnonzero(~taken)
    if len(rest) < min_rows or any(len(m) < min_rows for m in members):
        return None
    return GroupedPartitions(low, high, members, rest, _cost(queries, low, high, members))


class _BoxIndex:
    """Rows sorted per column (lazily, only columns some box restricts), so the rows of a small
    box are found by binary search on its most selective column, not by a scan of the node."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self.low_edge, self.high_edge = values.min(axis=0), values.max(axis=0)
        self._order: dict[int, np.ndarray] = {}
        self._sorted: dict[int, np.ndarray] = {}

    def rows_in(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        restricted = np.flatnonzero((low >= self.low_edge) | (high < self.high_edge))
        if len(restricted) == 0:
            return np.arange(len(self.values))
        starts, stops = self._bounds(low, high, restricted)
        by_selectivity = np.argsort(stops - starts)
        first = int(restricted[by_selectivity[0]])
        candidates = self._order[first][starts[by_selectivity[0]] : stops[by_selectivity[0]]]
        for k in by_selectivity[1:]:
            d = int(restricted[k])
            v = self.values[candidates, d]
            candidates = candidates[(v > low[d]) & (v <= high[d])]
        return candidates

    def _bounds(self, low: np.ndarray, high: np.ndarray, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        for d in columns:
            if d not in self._order:
                self._order[d] = np.argsort(self.values[:, d], kind="stable")
                self._sorted[d] = self.values[self._order[d], d]
        starts = np.array([np.searchsorted(self._sorted[d], low[d], side="right") for d in columns])
        stops = np.array([np.searchsorted(self._sorted[d], high[d], side="right") for d in columns])
        return starts, stops


def _merge_intersecting(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge boxes into bounding boxes until no two intersect (the groups of Figure 7b)."""
    low, high = low.copy(), high.copy()
    merged = True
    while merged and len(low) > 1:
        merged = False
        overlap = np.all((low[:, None, :] < high[None, :, :]) & (high[:, None, :] > low[None, :, :]), axis=2)
        np.fill_diagonal(overlap, False)
        if overlap.any():
            i = int(np.argmax(overlap.any(axis=1)))
            partners = np.flatnonzero(overlap[i]) .tolist() + [i]
            new_low = low[partners].min(axis=0)
            new_high = high[partners].max(axis=0)
            keep = np.setdiff1d(np.arange(len(low)), partners)
            low = np.vstack([low[keep], new_low[None, :]])
            high = np.vstack([high[keep], new_high[None, :]])
            merged = True
    return low, high


def _grow_to_block(
    index: _BoxIndex, low: np.ndarray, high: np.ndarray, region_low: np.ndarray, region_high: np.ndarray, min_rows: float
) -> tuple[np.ndarray, np.ndarray]:
    values = index.values
    low, high = np.maximum(low, region_low), np.minimum(high, region_high)
    needed = int(np.ceil(min_rows))
    out_low, out_high = low.copy(), high.copy()
    # NaN is encoded above every number (+inf): grow within the finite values' extent, or a box
    # bounded on one side has an infinite centre, its window is never measured, and the
    # doubling below never ends
    finite = np.isfinite(values)
    data_low = np.min(np.where(finite, values, np.inf), axis=0, initial=np.inf)
    data_high = np.max(np.where(finite, values, -np.inf), axis=0, initial=-np.inf)
    data_low, data_high = np.where(np.isfinite(data_low), data_low, 0.0), np.where(np.isfinite(data_high), data_high, 0.0)
    for k in range(len(low)):
        if needed > len(values) or len(index.rows_in(low[k], high[k])) >= needed:
            continue
        # the box's own extent, on bounded sides; unbounded sides need no growing
        lo = np.where(np.isfinite(low[k]), low[k], data_low)
        hi = np.where(np.isfinite(high[k]), high[k], data_high)
        centre, radius = (lo + hi) / 2, np.maximum((hi - lo) / 2, 1e-12)
        # double the factor until the window c ± f·r holds enough rows, then rank only those
        f = 1.0
        while True:
            window = index.rows_in(np.nextafter(centre - f * radius, -np.inf), centre + f * radius)
            if len(window) >= needed or np.all(centre - f * radius <= data_low) and np.all(centre + f * radius >= data_high):
                break
            f *= 2.0
        if len(window) == 0:
            continue  # no row has finite values on the box's bounded sides (all NULL or NaN): nothing to grow towards
        relative = np.max(np.abs(values[window] - centre) / radius, axis=1)
        f = float(np.partition(relative, min(needed, len(window)) - 1)[min(needed, len(window)) - 1])
        grown_low = np.nextafter(centre - f * radius, -np.inf)
        grown_high = centre + f * radius
        out_low[k] = np.where(np.isfinite(low[k]), np.maximum(grown_low, region_low), low[k])
        out_high[k] = np.where(np.isfinite(high[k]), np.minimum(grown_high, region_high), high[k])
    return out_low, out_high


def _pairwise_disjoint(low: np.ndarray, high: np.ndarray) -> bool:
    overlap = np.all((low[:, None, :] < high[None, :, :]) & (high[:, None, :] > low[None, :, :]), axis=2)
    np.fill_diagonal(overlap, False)
    return not overlap.any()


def _cost(queries: NodeQueries, low: np.ndarray, high: np.ndarray, members: list[np.ndarray]) -> float:
    # Every query box lies inside some group (groups contain their queries' MBRs), so no
    # query reads the irregular rest; each pays the groups it touches.
    sizes = np.array([len(m) for m in members], dtype=np.float64)
    hit = np.all((queries.low[:, None, :] < high[None, :, :]) & (queries.high[:, None, :] > low[None, :, :]), axis=2)
    _, index = np.unique(queries.owner, return_inverse=True)
    per_query = np.zeros((int(index.max()) + 1, len(low)), dtype=bool)
    np.logical_or.at(per_query, index, hit)
    return float((per_query * sizes[None, :]).sum())
