"""getSubtreePlan (Amoeba Algorithm 2) for all of a query's predicates in one walk of the tree.

The greedy asks, round after round, for the best plan of each predicate A_p. A walk per
predicate visits the same nodes |P| times; this walk visits each node once and answers for
every predicate at once, one row per predicate in arrays: the plans of different predicates
share nothing but the walk, so each row is the plan a walk for that predicate alone finds.
Plans are compared by the same float arithmetic, row by row, so ties fall the same way. A
plan's subtree is built only where the plan changes something.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skipstone.layout.adaptive.costs import CostModel, NodeInfo, as_cut, halves
from skipstone.layout import transforms
from skipstone.layout.tree import Node, Split

# how a plan at a node was made; the order of the candidates is the order they are tried in
UNCHANGED, BELOW, SWAP, PUSHUP, ROTATE_LEFT, ROTATE_RIGHT = range(6)
FREE = {PUSHUP: transforms.PUSHUP, ROTATE_LEFT: transforms.ROTATE_LEFT, ROTATE_RIGHT: transforms.ROTATE_RIGHT}


@dataclass(frozen=True)
class Cut:
    """A predicate A_p as a cut: rows with x[column] <= cut on the left."""

    column: int
    cut: float


@dataclass(frozen=True, eq=False)
class Plans:
    """Per cut of the query (one row each), the best plan for the subtree of one node."""

    nodes: list[Node]  # the plan's subtree: the node itself where the plan changes nothing
    costs: np.ndarray  # (cuts, window queries): the price of what each window query reads below
    cost: np.ndarray  # write_multiplier * the price of the blocks rewritten
    fully_accessed: np.ndarray  # the query reads every block below
    ptop: np.ndarray  # the plan's subtree starts with the cut
    changed: np.ndarray
    logical: np.ndarray  # made by a free transformation (pushup or rotate) at this node
    steps: list[tuple[str, ...]]


class Search:
    """The best plan below every node for each of `cuts` still `remaining`, memoized by node:
    the greedy applies one plan per round and asks again, and the subtrees it did not change
    answer alike (a node's region never changes, so neither do its plans)."""

    def __init__(self, model: CostModel, cuts: list[Cut], write_multiplier: float, objective: str) -> None:
        self.model, self.cuts = model, cuts
        self.write_multiplier, self.net = write_multiplier, objective == "net"
        self.columns = np.array([c.column for c in cuts], dtype=np.intp)
        self.values = np.array([c.cut for c in cuts], dtype=np.float64)
        self.remaining = np.ones(len(cuts), dtype=bool)  # only shrinks: remembered plans stay valid
        self._memo: dict[int, tuple[Node, Plans]] = {}
        self._zero, self._no, self._yes = np.zeros(len(cuts)), np.zeros(len(cuts), dtype=bool), np.ones(len(cuts), dtype=bool)

    def plans(self, node: Node, low: np.ndarray, high: np.ndarray) -> Plans:
        remembered = self._memo.get(id(node))
        if remembered is None:
            remembered = (node, self._plans(node, low, high))
            self._memo[id(node)] = remembered
        return remembered[1]

    def scores(self, base: float, costs: np.ndarray, cost: np.ndarray) -> np.ndarray:
        """Each plan's score against doing nothing (`base`, what the window pays today): its net
        benefit, or benefit / cost for the paper's ranking (a free plan that saves is best)."""
        benefit = base - costs.sum(axis=1)
        if self.net:
            return benefit - cost
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(cost == 0, np.where(benefit > 0, np.inf, 0.0), benefit / cost)

    def _plans(self, node: Node, low: np.ndarray, high: np.ndarray) -> Plans:
        info = self.model.info(node, low, high)
        split = as_cut(node)
        unchanged = self._unchanged(node, split, info)
        if split is None or not info.accessed:
            return unchanged
        # A cut outside the node's region would put every row on one side: no swap to price
        # here or below (regions only shrink), so no pushup or rotate either; only a degenerate
        # cut already in the tree could head a child, and builders and swaps make none.
        active = self.remaining & (low[self.columns] < self.values) & (self.values < high[self.columns])
        if not active.any():
            return unchanged
        left_high, right_low = halves(split, low, high)
        left = self.plans(split.left, low, left_high)
        right = self.plans(split.right, right_low, high)
        return self._choose(split, np.flatnonzero(active), left, right, info, unchanged, low, high)

    def _unchanged(self, node: Node, split: Split | None, info: NodeInfo) -> Plans:
        """Every cut's plan is the node as it is (the arrays are shared: copy before writing)."""
        count, no = len(self.cuts), self._no
        heads = no if split is None else (self.columns == split.column) & (self.values == split.cut)
        return Plans([node] * count, np.broadcast_to(info.costs, (count, len(info.costs))), self._zero,
                     self._yes if info.fully_accessed else no, heads, no, no, [()] * count)

    def _choose(self, node: Split, rows: np.ndarray, left: Plans, right: Plans, info: NodeInfo,
                unchanged: Plans, low: np.ndarray, high: np.ndarray) -> Plans:
        """The best of doing nothing (or what the children's plans did), swap, pushup and
        rotate for each active cut (`rows`), tried in that order; free plans win ties."""
        columns, values, heads = self.columns[rows], self.values[rows], unchanged.ptop[rows]
        left_ptop, right_ptop = left.ptop[rows], right.ptop[rows]
        below = left.changed[rows] | right.changed[rows]
        below_fully = left.fully_accessed[rows] & right.fully_accessed[rows]
        on_column = columns == node.column
        pushup = left_ptop & right_ptop & ~heads
        rotate_left = on_column & left_ptop & (values < node.cut)
        rotate_right = on_column & right_ptop & (values > node.cut)
        base, swap_cost = info.costs.sum(), self.write_multiplier * info.rewrite_cost
        swap_costs, swaps = self._swaps(node, rows, below_fully & ~heads, base, swap_cost, low, high)
        if not (below.any() or swaps.any() or pushup.any() or rotate_left.any() or rotate_right.any()):
            return unchanged
        below_costs = left.costs[rows] + right.costs[rows]
        below_cost = left.cost[rows] + right.cost[rows]
        below_scores = self.scores(base, below_costs, below_cost)
        best = np.where(below, below_scores, 0.0)  # doing nothing scores 0
        kind = np.where(below, BELOW, UNCHANGED)
        free = np.zeros(len(rows), dtype=bool)
        swap_scores = self.scores(base, swap_costs, np.full(len(rows), swap_cost)) if swaps.any() else best
        for made, allowed, score, logical in (
            (SWAP, swaps, swap_scores, False),
            (PUSHUP, pushup, below_scores, True),
            (ROTATE_LEFT, rotate_left, below_scores, True),
            (ROTATE_RIGHT, rotate_right, below_scores, True),
        ):
            if allowed.any():
                wins = allowed & ((score > best) | ((score == best) & logical & ~free))
                best, free, kind = np.where(wins, score, best), np.where(wins, logical, free), np.where(wins, made, kind)

        if not kind.any():
            return unchanged
        nodes, steps = list(unchanged.nodes), list(unchanged.steps)
        costs = np.array(unchanged.costs)
        cost, fully, ptop = unchanged.cost.copy(), unchanged.fully_accessed.copy(), unchanged.ptop.copy()
        changed, logical = unchanged.changed.copy(), unchanged.logical.copy()
        for i in np.flatnonzero(kind):
            k, made = rows[i], kind[i]
            changed[k], logical[k] = True, made >= PUSHUP
            if made == SWAP:
                cut = self.cuts[k]
                nodes[k] = self.model.swapped(node, low, high, cut.column, cut.cut)
                costs[k], cost[k], fully[k], ptop[k] = swap_costs[i], swap_cost, True, True
                steps[k] = (f"swap column {node.column} <= {node.cut} for column {cut.column} <= {cut.cut}",)
                continue
            nodes[k] = self._rearranged(node, made, k, left, right)
            costs[k], cost[k], fully[k] = below_costs[i], below_cost[i], below_fully[i]
            ptop[k] = True if made >= PUSHUP else heads[i]
            steps[k] = left.steps[k] + right.steps[k] + ({PUSHUP: ("pushup",), ROTATE_LEFT: ("rotate",),
                                                          ROTATE_RIGHT: ("rotate",)}.get(made, ()))
        return Plans(nodes, costs, cost, fully, ptop, changed, logical, steps)

    def _swaps(self, node: Split, rows: np.ndarray, fully: np.ndarray, base: float, cost: float,
               low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
        """What-if costs of replacing the node's cut by each active cut, and which swaps can
        win: the query reads every block below, the rewrite could pay (`net`), some window
        query lies wholly on one side of the new cut, and the window would read fewer rows."""
        none = np.zeros(len(rows), dtype=bool)
        # Even if no window query read a row below afterwards the swap would not pay; every
        # plan the search keeps has a net benefit >= 0 (doing nothing has 0), so none could win
        if not fully.any() or (self.net and base <= cost):
            return None, none
        allowed = fully & self.model.separating(node, low, high, self.columns[rows], self.values[rows])
        priced = self.model.swap_costs(node, low, high) if allowed.any() else None
        if priced is None:
            return None, none
        costs = priced[rows]
        return costs, allowed & (base - costs.sum(axis=1) > 0)

    def _rearranged(self, node: Split, made: int, k: int, left: Plans, right: Plans) -> Split:
        cut, below = self.cuts[k], Split(node.column, node.cut, left.nodes[k], right.nodes[k])
        if made == BELOW:
            return below
        return FREE[made].apply(below, cut.column, cut.cut)
