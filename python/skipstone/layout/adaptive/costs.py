"""The cost model of the adaptive optimizer, per node: rows each window query reads below it.

Cost(T, q) = sum of n_b over the blocks b of T that q reads (Amoeba §4.1). Costs are kept as
a vector over the window's queries so a node's cost is the sum of its children's, and a
what-if subtree is priced by the same rule. Block sizes of existing blocks are known exactly;
a what-if subtree holds exactly the rows of the subtree it replaces (a swap only reshuffles
them), and the sample says how they divide among its new blocks — a ratio estimate. Scaling
sample counts by table / sample instead lets a node's sampling noise pose as benefit: a
2-block node holding 5 rows and 2 sample rows looked like 24 rows to save for 20 to rewrite.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.tree import Leaf, Node, PartitionTree, Split


@dataclass(frozen=True, eq=False)
class NodeInfo:
    costs: np.ndarray  # per window query: rows read below this node
    accessed: bool  # the current query reads some block below
    fully_accessed: bool  # the current query reads every block below
    rewrite_rows: float  # rows of existing blocks below (what rewriting the subtree costs to read)
    rows: float  # all rows below: exact for existing blocks, estimated for planned ones


class QueryBoxes:
    """The boxes of several queries, to test many regions against all of them at once."""

    def __init__(self, queries: tuple[Query, ...] | list[Query], width: int) -> None:
        lows = [q.boxes.low for q in queries]
        self.count = len(queries)
        self.low = np.vstack(lows) if lows else np.empty((0, width))
        self.high = np.vstack([q.boxes.high for q in queries]) if lows else np.empty((0, width))
        sizes = np.array([q.boxes.count for q in queries], dtype=np.int64)
        self.owner = np.repeat(np.arange(self.count), sizes)

    def touched(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """(queries, regions) booleans: query i reads region j."""
        out = np.zeros((self.count, len(low)), dtype=bool)
        if len(self.owner) == 0 or len(low) == 0:
            return out
        hit = np.all((self.low[:, None, :] < high[None, :, :]) & (self.high[:, None, :] > low[None, :, :]), axis=2)
        np.logical_or.at(out, self.owner, hit)
        return out


    def separates(self, low: np.ndarray, high: np.ndarray, column: int, cut: float) -> bool:
        """Whether some box meeting the region (low, high] lies wholly on one side of the cut."""
        meets = np.all((self.low < high) & (self.high > low), axis=1)
        one_side = (self.high[:, column] <= cut) | (self.low[:, column] >= cut)
        return bool((meets & one_side).any())


class CostModel:
    """Annotates nodes (cached by identity: nodes are immutable) and prices what-if subtrees."""

    def __init__(self, tree: PartitionTree, window: QueryBoxes, current: QueryBoxes, sample: LayoutData) -> None:
        self.window, self.current, self.values = window, current, sample.values
        self._info: dict[int, tuple[Node, NodeInfo]] = {}
        self._rows: dict[int, tuple[Node, np.ndarray]] = {}
        self._whatif: dict[tuple[int, int, float], tuple[Node, Node, np.ndarray]] = {}
        self.plans: dict[tuple[int, int, float], tuple[Node, object]] = {}  # the optimizer's memo
        self._prime(tree, sample)

    def info(self, node: Node, low: np.ndarray, high: np.ndarray) -> NodeInfo:
        cached = self._info.get(id(node))
        if cached is not None:
            return cached[1]
        if isinstance(node, Leaf):
            result = self._leaf_info(node, low[None, :], high[None, :])[0]
        else:
            assert isinstance(node, Split)
            left_high, right_low = _halves(node, low, high)
            a = self.info(node.left, low, left_high)
            b = self.info(node.right, right_low, high)
            result = NodeInfo(a.costs + b.costs, a.accessed or b.accessed, a.fully_accessed and b.fully_accessed,
                              a.rewrite_rows + b.rewrite_rows, a.rows + b.rows)
        self._remember(node, result)
        return result

    def rows_under(self, node: Node) -> np.ndarray:
        """Indexes of the sample rows stored below the node."""
        cached = self._rows.get(id(node))
        if cached is not None:
            return cached[1]
        assert isinstance(node, Split), "every leaf's sample rows are recorded when it is made"
        rows = np.concatenate([self.rows_under(node.left), self.rows_under(node.right)])
        self._rows[id(node)] = (node, rows)
        return rows

    def swapped(self, node: Split, column: int, cut: float, low: np.ndarray, high: np.ndarray) -> tuple[Node, np.ndarray] | None:
        """The what-if subtree of swapping node's cut for (column, cut): the same shapes below,
        the node's sample rows routed through them; None when no sample row lies below, as
        then nothing is known about where its rows would go. Remembered, since the greedy
        asks again for every predicate in every round."""
        key = (id(node), column, cut)
        if key not in self._whatif:
            rows = self.rows_under(node)
            found = None
            if len(rows):
                per_sample_row = self.info(node, low, high).rows / len(rows)
                found = self._reroute(column, cut, node.left, node.right, low, high, rows, per_sample_row)
            self._whatif[key] = (node, found)
        return self._whatif[key][1]

    def _reroute(self, column: int, cut: float, left: Node, right: Node, low: np.ndarray, high: np.ndarray,
                 rows: np.ndarray, per_sample_row: float) -> tuple[Node, np.ndarray]:
        leaves: list[tuple[Leaf, np.ndarray, np.ndarray, np.ndarray]] = []
        node = self._shape(Split(column, cut, left, right), low, high, rows, per_sample_row, leaves)
        lows = np.array([l for _, l, _, _ in leaves])
        highs = np.array([h for _, _, h, _ in leaves])
        sizes = np.array([leaf.rows for leaf, _, _, _ in leaves])
        costs = self.window.touched(lows, highs) @ sizes
        for leaf, lo, hi, leaf_rows in leaves:
            self._rows[id(leaf)] = (leaf, leaf_rows)
        return node, costs

    def _shape(self, shape: Node, low: np.ndarray, high: np.ndarray, rows: np.ndarray, per_sample_row: float, leaves: list) -> Node:
        if isinstance(shape, Leaf):
            leaf = Leaf(-1, len(rows) * per_sample_row)
            leaves.append((leaf, low, high, rows))
            return leaf
        assert isinstance(shape, Split), f"the adaptive optimizer handles binary cuts only, not {type(shape).__name__}"
        left_high, right_low = _halves(shape, low, high)
        goes_left = self.values[rows, shape.column] <= shape.cut
        return Split(
            shape.column,
            shape.cut,
            self._shape(shape.left, low, left_high, rows[goes_left], per_sample_row, leaves),
            self._shape(shape.right, right_low, high, rows[~goes_left], per_sample_row, leaves),
        )

    def _leaf_info(self, leaf: Leaf, low: np.ndarray, high: np.ndarray) -> list[NodeInfo]:
        costs = self.window.touched(low, high)[:, 0] * leaf.rows
        new = leaf.block < 0  # made by this plan: written anyway, free to restructure
        accessed = new or bool(self.current.touched(low, high)[:, 0].any())
        return [NodeInfo(costs, accessed, accessed, 0.0 if new else leaf.rows, leaf.rows)]

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
        for k, (leaf, _, _) in enumerate(leaves):
            accessed = bool(current_hit[k]) or leaf.block < 0
            info = NodeInfo(window_hit[:, k] * leaf.rows, accessed, accessed, 0.0 if leaf.block < 0 else leaf.rows, leaf.rows)
            self._remember(leaf, info)
            self._rows[id(leaf)] = (leaf, order[starts[k] : starts[k + 1]])

    def _remember(self, node: Node, info: NodeInfo) -> None:
        self._info[id(node)] = (node, info)  # holding the node keeps its id from being reused


def _collect(node: Node, low: np.ndarray, high: np.ndarray, out: list) -> None:
    if isinstance(node, Leaf):
        out.append((node, low, high))
        return
    if not isinstance(node, Split):
        raise TypeError(f"the adaptive optimizer handles binary cuts only, not {type(node).__name__}")
    left_high, right_low = _halves(node, low, high)
    _collect(node.left, low, left_high, out)
    _collect(node.right, right_low, high, out)


def _halves(node: Split, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    left_high, right_low = high.copy(), low.copy()
    left_high[node.column] = min(high[node.column], node.cut)
    right_low[node.column] = max(low[node.column], node.cut)
    return left_high, right_low
