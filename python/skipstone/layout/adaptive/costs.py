"""The cost model of the adaptive optimizer, per node: what each window query pays below it.

Cost(T, q) = sum of price(n_b) over the blocks b of T that q reads: n_b itself under
``RowsRead`` (Amoeba §4.1), bytes plus a cost per file under ``SparkCost``
(`skipstone.layout.cost_model`). A block's price depends on its rows alone, so a what-if
block is priced from its estimated rows like any other. Costs are kept as
a vector over the window's queries so a node's cost is the sum of its children's, and a
what-if subtree is priced by the same rule. Block sizes of existing blocks are known exactly;
a what-if subtree holds exactly the rows of the subtree it replaces (a swap only reshuffles
them), and the sample says how they divide among its new blocks — a ratio estimate. Scaling
sample counts by table / sample instead lets a node's sampling noise pose as benefit: a
2-block node holding 5 rows and 2 sample rows looked like 24 rows to save for 20 to rewrite.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from skipstone.layout.cost_model import CostModel as Pricing
from skipstone.layout.cost_model import RowsRead, write_costs
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.routing import compile_router
from skipstone.layout.tree import GroupSplit, Leaf, Node, PartitionTree, Split, leaves_of, map_leaves


@dataclass(frozen=True, eq=False)
class NodeInfo:
    costs: np.ndarray  # per window query: the price of what it reads below this node
    accessed: bool  # the current query reads some block below
    fully_accessed: bool  # the current query reads every block below
    rewrite_cost: float  # the price of the existing blocks below (rewriting the subtree reads and writes them)
    rows: float  # all rows below: exact for existing blocks, estimated for planned ones


@dataclass(frozen=True, eq=False)
class _Side:
    """One child of a node as the shape under a what-if cut: its leaves' regions within the
    node, on how many dimensions each window box misses each leaf, and where each of the
    node's sample rows lands in it."""

    shape: Node
    low: np.ndarray  # (leaves, columns)
    high: np.ndarray
    misses: np.ndarray  # (boxes, leaves)
    position: np.ndarray  # per sample row below the node: its leaf in this shape
    order: np.ndarray  # the rows sorted by leaf ...
    starts: np.ndarray  # ... and where each leaf's rows start in that order


@dataclass(frozen=True, eq=False)
class _Swaps:
    rows: np.ndarray  # the sample rows below the node
    per_sample_row: float  # the node's rows / its sample rows: the ratio estimate
    near: QueryBoxes  # the window boxes that meet the node
    left: _Side
    right: _Side


class QueryBoxes:
    """The boxes of several queries, to test many regions against all of them at once."""

    def __init__(self, queries: tuple[Query, ...] | list[Query], width: int) -> None:
        lows = [q.boxes.low for q in queries]
        low = np.vstack(lows) if lows else np.empty((0, width))
        high = np.vstack([q.boxes.high for q in queries]) if lows else np.empty((0, width))
        sizes = np.array([q.boxes.count for q in queries], dtype=np.int64)
        self._set(low, high, np.repeat(np.arange(len(queries)), sizes), len(queries))

    def _set(self, low: np.ndarray, high: np.ndarray, owner: np.ndarray, count: int) -> None:
        self.low, self.high, self.owner, self.count = low, high, owner, count
        # owners are sorted: each present query's boxes are one run, for reduceat
        self.present, self.starts = np.unique(owner, return_index=True)

    def subset(self, keep: np.ndarray) -> QueryBoxes:
        """The same queries with only the boxes in `keep` (e.g. those meeting a node: the
        others can read nothing below it)."""
        out = QueryBoxes.__new__(QueryBoxes)
        out._set(self.low[keep], self.high[keep], self.owner[keep], self.count)
        return out

    def touched(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """(queries, regions) booleans: query i reads region j."""
        if len(self.owner) == 0 or len(low) == 0:
            return np.zeros((self.count, len(low)), dtype=bool)
        return self.by_query(np.all((self.low[:, None, :] < high[None, :, :]) & (self.high[:, None, :] > low[None, :, :]), axis=2))

    def by_query(self, hit: np.ndarray) -> np.ndarray:
        """(boxes, regions) -> (queries, regions): a query reads a region if one of its boxes does."""
        out = np.zeros((self.count,) + hit.shape[1:], dtype=bool)
        if len(self.owner):
            out[self.present] = np.logical_or.reduceat(hit, self.starts, axis=0)
        return out

    def meeting(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """Per box: whether it meets the region (low, high]."""
        return np.all((self.low < high) & (self.high > low), axis=1)


class CostModel:
    """Annotates nodes (cached by identity: nodes are immutable) and prices what-if subtrees."""

    def __init__(self, tree: PartitionTree, window: QueryBoxes, current: QueryBoxes, sample: LayoutData,
                 cuts: Sequence[tuple[int, float]] = (), pricing: Pricing = RowsRead()) -> None:
        self.window, self.current, self.values, self.pricing = window, current, sample.values, pricing
        self._by_rows = isinstance(pricing, RowsRead)
        self.cuts = list(cuts)  # the current query's cuts (column, value), priced together
        self._info: dict[int, tuple[Node, NodeInfo]] = {}
        self._rows: dict[int, tuple[Node, np.ndarray]] = {}
        self._whatif: dict[int, tuple[Node, np.ndarray | None]] = {}
        self._built: dict[tuple[int, int, float], tuple[Node, Node]] = {}
        self._swap_data: dict[int, tuple[Node, _Swaps]] = {}
        self._prime(tree, sample)

    def info(self, node: Node, low: np.ndarray, high: np.ndarray) -> NodeInfo:
        cached = self._info.get(id(node))
        if cached is not None:
            return cached[1]
        cut = as_cut(node)
        if cut is None:
            result = self._leaf_info(node, low[None, :], high[None, :])[0]  # type: ignore[arg-type]
        else:
            left_high, right_low = halves(cut, low, high)
            a = self.info(cut.left, low, left_high)
            b = self.info(cut.right, right_low, high)
            result = NodeInfo(a.costs + b.costs, a.accessed or b.accessed, a.fully_accessed and b.fully_accessed,
                              a.rewrite_cost + b.rewrite_cost, a.rows + b.rows)
        self._remember(node, result)
        return result

    def rows_under(self, node: Node) -> np.ndarray:
        """Indexes of the sample rows stored below the node."""
        cached = self._rows.get(id(node))
        if cached is not None:
            return cached[1]
        cut = as_cut(node)
        assert cut is not None, "every leaf's sample rows are recorded when it is made"
        rows = np.concatenate([self.rows_under(cut.left), self.rows_under(cut.right)])
        self._rows[id(node)] = (node, rows)
        return rows

    def separating(self, node: Split, low: np.ndarray, high: np.ndarray, columns: np.ndarray, cuts: np.ndarray) -> np.ndarray:
        """Per cut: whether some window query box meeting the node lies wholly on one side."""
        near = self._swaps(node, low, high).near
        one_side = (near.high[:, columns] <= cuts) | (near.low[:, columns] >= cuts)
        return one_side.any(axis=0)

    def swap_costs(self, node: Split, low: np.ndarray, high: np.ndarray) -> np.ndarray | None:
        """(cuts, window queries): what each window query would pay below the node if its
        cut were each of the query's cuts (`cuts`), with the same shapes below and the node's
        rows re-routed through them; None when no sample row lies below, as then nothing is
        known about where rows go. One NumPy pass prices every cut of the query."""
        cached = self._whatif.get(id(node))
        if cached is None:
            swaps = self._swaps(node, low, high)
            costs = None
            if len(swaps.rows):
                columns = np.array([c for c, _ in self.cuts], dtype=np.intp)
                values = np.array([v for _, v in self.cuts], dtype=np.float64)
                goes_left = self.values[swaps.rows[:, None], columns[None, :]] <= values[None, :]
                # rows: sum sample rows, then scale once (the floats, and so the ties, of the
                # paper's unit as before prices existed); other prices need each new leaf's rows
                per_leaf, after = (1.0, swaps.per_sample_row) if self._by_rows else (swaps.per_sample_row, 1.0)
                costs = ((self._side_costs(swaps.left, swaps.near, columns, values, goes_left, True, per_leaf)
                          + self._side_costs(swaps.right, swaps.near, columns, values, ~goes_left, False, per_leaf))
                         * after).T
            cached = (node, costs)
            self._whatif[id(node)] = cached
        return cached[1]

    def swapped(self, node: Split, low: np.ndarray, high: np.ndarray, column: int, cut: float) -> Node:
        """The what-if subtree that `swap_costs` priced, its new leaves' sample rows recorded."""
        key = (id(node), column, cut)
        if key not in self._built:
            swaps = self._swaps(node, low, high)
            goes_left = self.values[swaps.rows, column] <= cut
            sides = [self._fill(side.shape, swaps.rows[mask], side.position[mask], swaps.per_sample_row)
                     for side, mask in ((swaps.left, goes_left), (swaps.right, ~goes_left))]
            self._built[key] = (node, Split(column, cut, sides[0], sides[1]))
        return self._built[key][1]

    def _swaps(self, node: Split, low: np.ndarray, high: np.ndarray) -> _Swaps:
        """What every swap at this node shares, whatever the new cut: computed once per node."""
        cached = self._swap_data.get(id(node))
        if cached is None:
            rows = self.rows_under(node)
            per_sample_row = self.info(node, low, high).rows / max(len(rows), 1)
            near = self.window.subset(self.window.meeting(low, high))
            left, right = (self._side(child, low, high, rows, near) for child in (node.left, node.right))
            cached = (node, _Swaps(rows, per_sample_row, near, left, right))
            self._swap_data[id(node)] = cached
        return cached[1]

    def _side(self, shape: Node, low: np.ndarray, high: np.ndarray, rows: np.ndarray, w: QueryBoxes) -> _Side:
        leaves: list[tuple[Leaf, np.ndarray, np.ndarray]] = []
        _collect(shape, low, high, leaves)  # the node's region: its own cut is what a swap replaces
        lows = np.array([l for _, l, _ in leaves])
        highs = np.array([h for _, _, h in leaves])
        misses = (~((w.low[:, None, :] < highs[None, :, :]) & (w.high[:, None, :] > lows[None, :, :]))).sum(axis=2, dtype=np.int16)
        position = compile_router(shape).route(self.values[rows])
        order = np.argsort(position, kind="stable")
        return _Side(shape, lows, highs, misses, position, order, np.searchsorted(position[order], np.arange(len(leaves) + 1)))

    def _side_costs(self, side: _Side, w: QueryBoxes, columns: np.ndarray, cuts: np.ndarray, mine: np.ndarray,
                    is_left: bool, per_sample_row: float) -> np.ndarray:
        """(queries, cuts): what each window query would pay in one side of each what-if cut,
        its new leaves priced from their sample rows x `per_sample_row` (1: sample rows). A leaf's region is its
        region in the node narrowed on the cut's column to the side, so only that column's
        overlap test changes: a box reads the leaf if it missed it on no other column and meets
        the narrowed interval."""
        counts = np.vstack([np.zeros((1, len(cuts))), np.cumsum(mine[side.order], axis=0)])
        sizes = counts[side.starts[1:]] - counts[side.starts[:-1]]  # (leaves, cuts), in sample rows
        prices = sizes if self._by_rows else self.pricing.block_costs(sizes * per_sample_row)
        out = np.zeros((w.count, len(cuts)))
        step = max(1, 4_000_000 // max(1, len(w.owner) * len(side.low)))  # bound the (boxes, leaves, cuts) arrays
        for k in range(0, len(cuts), step):
            cols, cut = columns[k : k + step], cuts[k : k + step]
            ql, qh = w.low[:, None, cols], w.high[:, None, cols]
            lows, highs = side.low[None, :, cols], side.high[None, :, cols]
            missed_before = ~((ql < highs) & (qh > lows))
            if is_left:
                narrowed = (ql < np.minimum(highs, cut)) & (qh > lows)
            else:
                narrowed = (ql < highs) & (qh > np.maximum(lows, cut))
            hit = ((side.misses[:, :, None] - missed_before) == 0) & narrowed
            out[:, k : k + step] = np.einsum("qjk,jk->qk", w.by_query(hit).astype(np.float64), prices[:, k : k + step])
        return out

    def _fill(self, shape: Node, rows: np.ndarray, position: np.ndarray, per_sample_row: float) -> Node:
        """The shape with new leaves holding the given sample rows (by depth-first position)."""
        order = np.argsort(position, kind="stable")
        count = len(leaves_of(shape))
        starts = np.searchsorted(position[order], np.arange(count + 1))
        made = iter(range(count))

        def new_leaf(_: Leaf) -> Leaf:
            k = next(made)
            leaf = Leaf(-1, (starts[k + 1] - starts[k]) * per_sample_row)
            self._rows[id(leaf)] = (leaf, rows[order[starts[k] : starts[k + 1]]])
            return leaf

        return map_leaves(shape, new_leaf)

    def _leaf_info(self, leaf: Leaf, low: np.ndarray, high: np.ndarray) -> list[NodeInfo]:
        price = self._price(leaf.rows)
        costs = self.window.touched(low, high)[:, 0] * price
        new = leaf.block < 0  # made by this plan: written anyway, free to restructure
        accessed = new or bool(self.current.touched(low, high)[:, 0].any())
        write = 0.0 if new else float(write_costs(self.pricing, np.array([leaf.rows], dtype=np.float64))[0])
        return [NodeInfo(costs, accessed, accessed, write, leaf.rows)]

    def _prime(self, tree: PartitionTree, sample: LayoutData) -> None:
        """Annotate every leaf of the current tree in one batch."""
        leaves: list[tuple[Leaf, np.ndarray, np.ndarray]] = []
        _collect(tree.root, np.full(tree.schema.width, -np.inf), np.full(tree.schema.width, np.inf), leaves)
        lows = np.array([l for _, l, _ in leaves])
        highs = np.array([h for _, _, h in leaves])
        window_hit = self.window.touched(lows, highs)
        current_hit = self.current.touched(lows, highs).any(axis=0)
        positions = tree.route(sample)
        order = np.argsort(positions, kind="stable")
        starts = np.searchsorted(positions[order], np.arange(len(leaves) + 1))
        rows = np.array([leaf.rows for leaf, _, _ in leaves], dtype=np.float64)
        prices, writes = self.pricing.block_costs(rows), write_costs(self.pricing, rows)
        for k, (leaf, _, _) in enumerate(leaves):
            accessed = bool(current_hit[k]) or leaf.block < 0
            info = NodeInfo(window_hit[:, k] * prices[k], accessed, accessed, 0.0 if leaf.block < 0 else writes[k], leaf.rows)
            self._remember(leaf, info)
            self._rows[id(leaf)] = (leaf, order[starts[k] : starts[k + 1]])

    def _price(self, rows: float) -> float:
        return float(self.pricing.block_costs(np.array([rows], dtype=np.float64))[0])

    def _remember(self, node: Node, info: NodeInfo) -> None:
        self._info[id(node)] = (node, info)  # holding the node keeps its id from being reused


class _AsCut:
    """The one place the optimizer tells nodes apart: a block, a binary cut, or PAW's grouped
    split, which Amoeba's transformations do not define and which is refused by name."""

    def leaf(self, node: Leaf) -> Split | None:
        return None

    def split(self, node: Split) -> Split | None:
        return node

    def group_split(self, node: GroupSplit) -> Split | None:
        raise TypeError("the adaptive optimizer handles binary cuts only, not GroupSplit")


_AS_CUT = _AsCut()


def as_cut(node: Node) -> Split | None:
    """The node as a binary cut, or None for a leaf."""
    return node.accept(_AS_CUT)


def _collect(node: Node, low: np.ndarray, high: np.ndarray, out: list) -> None:
    cut = as_cut(node)
    if cut is None:
        out.append((node, low, high))
        return
    left_high, right_low = halves(cut, low, high)
    _collect(cut.left, low, left_high, out)
    _collect(cut.right, right_low, high, out)


def halves(node: Split, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    left_high, right_low = high.copy(), low.copy()
    left_high[node.column] = min(high[node.column], node.cut)
    right_low[node.column] = max(low[node.column], node.cut)
    return left_high, right_low
