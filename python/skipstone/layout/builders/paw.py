"""PAW: partitioning aware of workload variance (Li, Yiu, Chan; ICDE 2022).

1. Extend every historical query by δ on every side: the worst-case future workload Q*_F
   (Lemma 1), δ given per column or as a fraction of each column's domain, or estimated from
   the history (§IV-E, `estimate_delta`).
2. Algorithm 3: recursively try the split functions the policy Ψ allows — the multi-group
   split when a node holds at least α·block_rows rows, the axis-parallel split (median or a
   query boundary per column) when it holds at least 2·block_rows — and keep the cheapest if
   it beats not splitting.
3. Data-aware refinement: leaves of 2·block_rows or more are split by a k-d tree until every
   block holds block_rows to 2·block_rows rows.

>>> import numpy as np
>>> from skipstone.layout.schema import LayoutData
>>> from skipstone.layout.queries import Query
>>> rng = np.random.default_rng(0)
>>> data = LayoutData.from_columns({"x": rng.random(20_000), "y": rng.random(20_000)})
>>> history = [Query.from_ranges(data.schema, {"x": (0.1, 0.15), "y": (0.1, 0.15)})]
>>> tree = build_paw_tree(data, history, block_rows=1_000, delta=0.01)
>>> future = Query.from_ranges(data.schema, {"x": (0.11, 0.16), "y": (0.09, 0.14)})
>>> bool(tree.cost(future) <= 2_000)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from skipstone.layout.builders.data_aware import kd_refine
from skipstone.layout.builders.median import check_block_rows, median_cut, sample_scale
from skipstone.layout.builders.node_queries import NodeQueries, best_axis_cut, query_bound_cuts
from skipstone.layout.builders.paw_splits import multi_group_split
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.tree import Group, GroupSplit, Leaf, Node, PartitionTree, Split, renumber


@dataclass(frozen=True)
class PawOptions:
    """α of the split policy Ψ (Equation 4), whether to refine leaves by a k-d tree, and
    whether overlapping grown groups are merged (ours) rather than failing the split.

    >>> from skipstone.layout import PawOptions
    >>> PawOptions(alpha=2).refine
    True
    """

    alpha: float = 4.0
    refine: bool = True
    merge_overlaps: bool = True

    def __post_init__(self) -> None:
        if self.alpha <= 1:
            raise ValueError(f"PAW option alpha must be larger than 1, got {self.alpha}")


def domain_delta(sample: LayoutData, fraction: float) -> np.ndarray:
    """δ as a fraction of each column's domain length in the sample (PAW's Table III unit)."""
    if fraction < 0:
        raise ValueError(f"delta must not be negative, got {fraction}")
    finite = np.where(np.isfinite(sample.values), sample.values, np.nan)
    return fraction * (np.nanmax(finite, axis=0) - np.nanmin(finite, axis=0))


def build_paw_tree(
    sample: LayoutData,
    history: Sequence[Query],
    block_rows: float,
    delta: float | np.ndarray = 0.0,
    total_rows: float | None = None,
    options: PawOptions = PawOptions(),
) -> PartitionTree:
    """PAW's layout for the historical workload `history`; `delta` is a fraction of each
    column's domain (a float) or an absolute δ per column (an array).

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import build_paw_tree
    >>> tree = build_paw_tree(data, [query], block_rows=1000)
    >>> tree.block_count, tree.cost(query)
    (5, 1000.0)
    """
    check_block_rows(block_rows)
    scale = sample_scale(sample.rows, total_rows)
    width = sample.schema.width
    delta_per_column = domain_delta(sample, delta) if np.isscalar(delta) else np.asarray(delta, dtype=np.float64)
    if delta_per_column.shape != (width,):
        raise ValueError(f"delta has {delta_per_column.shape} entries; the layout has {width} columns")
    worst_case = NodeQueries.of(history, width).extended(delta_per_column)
    # the root partition P_o is the bounding box of the data (Algorithm 3)
    low = np.nextafter(sample.values.min(axis=0), -np.inf)
    high = sample.values.max(axis=0)
    builder = _Construction(sample.values, scale, block_rows / scale, options)
    root = builder.construct(np.arange(sample.rows), low, high, worst_case.clip(low, high))
    return PartitionTree(sample.schema, renumber(root))


class _Construction:
    def __init__(self, values: np.ndarray, scale: float, min_rows: float, options: PawOptions) -> None:
        self.values, self.scale, self.min_rows, self.options = values, scale, min_rows, options

    def construct(self, rows: np.ndarray, low: np.ndarray, high: np.ndarray, queries: NodeQueries) -> Node:
        """Algorithm 3 on the node holding sample `rows` inside the box (low, high]."""
        size = len(rows)
        if queries.is_empty or size < 2 * self.min_rows:
            return self._leaf(rows)
        values = self.values[rows]
        unsplit_cost = queries.count * size
        axis = self._axis_parallel(values, queries, low, high)
        groups = None
        if size >= self.options.alpha * self.min_rows:
            groups = multi_group_split(values, queries, low, high, self.min_rows, self.options.merge_overlaps)
        best_cost = min(c for c in (unsplit_cost, axis.cost if axis else np.inf, groups.cost if groups else np.inf))
        if best_cost >= unsplit_cost:
            return self._leaf(rows)
        if groups is not None and groups.cost == best_cost:
            children = []
            for k, member in enumerate(groups.members):
                g_low, g_high = groups.low[k], groups.high[k]
                child = self.construct(rows[member], g_low, g_high, queries.clip(g_low, g_high))
                # A side on the node's edge stands for everything beyond it: at the root the
                # edge is only the sample's bounding box, and the descriptor must not leave a
                # slab outside it to the irregular rest, or every query would read that rest.
                open_low = np.where(g_low <= low, -np.inf, g_low)
                open_high = np.where(g_high >= high, np.inf, g_high)
                children.append(Group(tuple(open_low), tuple(open_high), child))
            # the irregular partition holds no query: it only gets the data-aware refinement
            return GroupSplit(tuple(children), self._leaf(rows[groups.rest]))
        assert axis is not None
        goes_left = values[:, axis.column] <= axis.cut
        left_high, right_low = high.copy(), low.copy()
        left_high[axis.column], right_low[axis.column] = axis.cut, axis.cut
        return Split(
            axis.column,
            axis.cut,
            self.construct(rows[goes_left], low, left_high, queries.clip(low, left_high)),
            self.construct(rows[~goes_left], right_low, high, queries.clip(right_low, high)),
        )

    def _axis_parallel(self, values: np.ndarray, queries: NodeQueries, low: np.ndarray, high: np.ndarray):
        """Algorithm 2: per column, the median and every query boundary inside the node."""
        candidates = []
        for d in range(values.shape[1]):
            cuts = query_bound_cuts(queries, d, low[d], high[d])
            median = median_cut(values[:, d])
            candidates.append(cuts if median is None else np.append(cuts, median))
        return best_axis_cut(values, queries, candidates, self.min_rows)

    def _leaf(self, rows: np.ndarray) -> Node:
        if self.options.refine and len(rows) >= 2 * self.min_rows:
            order = list(range(self.values.shape[1]))
            return kd_refine(self.values, rows, self.scale, self.min_rows * self.scale, order)
        return Leaf(0, len(rows) * self.scale)
