"""Amoeba's adaptive optimizer: getSubtreePlan (Algorithm 2) and getBestPlan (Algorithm 3).

For a query, each of its predicates A_p is tried as a swap (replace a fully accessed node's
cut by A_p, rewriting that subtree), a pushup (A_p on both children becomes the parent's cut;
free) or a rotate (A_p under a node on the same attribute moves up; free), bottom-up, keeping
at each node the best plan. The greedy takes the best predicate, applies it, and tries the
rest on the result. The plan is used only if its benefit over the query window exceeds its
cost, c times the rows it rewrites; only blocks the query reads are ever rewritten.

>>> import numpy as np
>>> from skipstone.layout import LayoutData, Query, build_kd_tree
>>> x = np.repeat(np.arange(8.0), 100); y = np.tile(np.arange(100.0), 8)
>>> data = LayoutData.from_columns({"x": x, "y": y})
>>> tree = build_kd_tree(data, block_rows=400, columns=["y"])      # two blocks cut on y
>>> q = Query.from_json({"column": "x", "op": "<=", "value": 3}, tree.schema)
>>> window = QueryWindow(10).add(0, q).add(1, q).add(2, q).add(3, q).add(4, q).add(5, q).add(6, q).add(7, q).add(8, q)
>>> plan = best_plan(tree, window, q, data)
>>> plan.tree.root.column, plan.tree.root.cut, plan.rewritten_rows
(0, 3.0, 800.0)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from skipstone.layout.adaptive.costs import CostModel, QueryBoxes, as_cut
from skipstone.layout.adaptive.window import QueryWindow
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.tree import Leaf, Node, PartitionTree, Split, leaves_of, map_leaves

OBJECTIVES = ("net", "ratio")


@dataclass(frozen=True)
class OptimizerOptions:
    """`write_multiplier` is Amoeba's c (a written row costs c reads). `objective` ranks plans:
    "ratio" is the paper's benefit/cost; "net" (ours, the default) is benefit - cost, which is
    what the final benefit > cost gate measures."""

    write_multiplier: float = 4.0
    objective: str = "net"

    def __post_init__(self) -> None:
        if self.write_multiplier < 0:
            raise ValueError(f"write_multiplier must not be negative, got {self.write_multiplier}")
        if self.objective not in OBJECTIVES:
            raise ValueError(f"unknown objective {self.objective!r}; use one of {OBJECTIVES}")


@dataclass(frozen=True)
class Cut:
    """A predicate A_p as a cut: rows with x[column] <= cut on the left."""

    column: int
    cut: float

    def heads(self, node: Node) -> bool:
        cut = as_cut(node)
        return cut is not None and cut.column == self.column and cut.cut == self.cut


@dataclass(frozen=True, eq=False)
class RepartitionPlan:
    """What to do: rewrite `rewritten_blocks` (existing blocks the query reads) into the new
    blocks of `tree`, numbered after every existing block."""

    tree: PartitionTree
    rewritten_blocks: tuple[int, ...]
    new_blocks: tuple[int, ...]
    rewritten_rows: float
    benefit: float  # rows the window's queries would no longer read
    cost: float  # write_multiplier * rewritten_rows
    steps: tuple[str, ...]  # the transformations, for logs


@dataclass(frozen=True, eq=False)
class _Plan:
    node: Node | None  # None for a swap until it wins: building the what-if tree costs more than pricing it
    costs: np.ndarray
    cost: float
    fully_accessed: bool
    ptop: bool
    changed: bool
    logical: bool = False
    steps: tuple[str, ...] = ()
    build: Callable[[], Node] | None = None


def query_cuts(query: Query) -> list[Cut]:
    """The predicates of a query as cuts: every finite bound of every box (§4.4)."""
    cuts: list[Cut] = []
    for low, high in zip(query.boxes.low, query.boxes.high):
        for d in range(len(low)):
            for bound in (low[d], high[d]):
                if np.isfinite(bound) and Cut(d, float(bound)) not in cuts:
                    cuts.append(Cut(d, float(bound)))
    return cuts


def best_plan(
    tree: PartitionTree,
    window: QueryWindow,
    query: Query,
    sample: LayoutData,
    options: OptimizerOptions = OptimizerOptions(),
) -> RepartitionPlan | None:
    """getBestPlan: the repartitioning for `query` (already in `window`) or None when no plan's
    benefit over the window exceeds its cost. `sample` stands for the table's rows in
    proportion (the tree's total rows / sample rows)."""
    if sample.schema != tree.schema:
        raise ValueError("the sample's schema differs from the tree's")
    width = tree.schema.width
    model = CostModel(tree, QueryBoxes(window.queries, width), QueryBoxes([query], width), sample)
    low, high = np.full(width, -np.inf), np.full(width, np.inf)
    before = model.info(tree.root, low, high).costs.sum()
    root, steps = tree.root, ()
    remaining = query_cuts(query)
    model.cuts = [(c.column, c.cut) for c in remaining]
    while remaining:
        plans = [(c, _Search(model, c, options).plan(root, low, high)) for c in remaining]
        plans = [(c, p) for c, p in plans if p.changed]
        if not plans:
            break
        best_cut, plan = plans[0]
        for c, p in plans[1:]:
            if _better(p, plan, model, root, options):
                best_cut, plan = c, p
        root, steps = plan.node, steps + plan.steps
        remaining.remove(best_cut)
    if root is tree.root:
        return None
    # the gate is checked once, at the end: one predicate may not pay, several together may
    return _finish(tree, root, before - model.info(root, low, high).costs.sum(), steps, options)


class _Search:
    """getSubtreePlan for one predicate."""

    def __init__(self, model: CostModel, cut: Cut, options: OptimizerOptions) -> None:
        self.model, self.cut, self.options = model, cut, options

    def plan(self, node: Node, low: np.ndarray, high: np.ndarray) -> _Plan:
        # the greedy re-asks every predicate each round; subtrees it did not change answer alike
        key = (id(node), self.cut.column, self.cut.cut)
        remembered = self.model.plans.get(key)
        if remembered is None:
            remembered = (node, self._plan(node, low, high))
            self.model.plans[key] = remembered
        return remembered[1]

    def _plan(self, node: Node, low: np.ndarray, high: np.ndarray) -> _Plan:
        info = self.model.info(node, low, high)
        unchanged = _Plan(node, info.costs, 0.0, info.fully_accessed, self.cut.heads(node), False)
        # A cut outside the node's region would put every row on one side: no swap to price here
        # or below (regions only shrink), so no pushup or rotate either; only a degenerate cut
        # already in the tree could head a child, and builders and swaps make none.
        inside = low[self.cut.column] < self.cut.cut < high[self.cut.column]
        split = as_cut(node)
        if split is None or not info.accessed or not inside:
            return unchanged
        node = split
        left_high, right_low = high.copy(), low.copy()
        left_high[node.column], right_low[node.column] = min(high[node.column], node.cut), max(low[node.column], node.cut)
        left = self.plan(node.left, low, left_high)
        right = self.plan(node.right, right_low, high)
        best = unchanged
        if left.changed or right.changed:
            best = _Plan(Split(node.column, node.cut, left.node, right.node), left.costs + right.costs,
                         left.cost + right.cost, left.fully_accessed and right.fully_accessed,
                         self.cut.heads(node), True, steps=left.steps + right.steps)
        candidates = []
        if left.fully_accessed and right.fully_accessed and not self.cut.heads(node):
            candidates.append(self._swap(node, low, high, info))
        if left.ptop and right.ptop and not self.cut.heads(node):
            candidates.append(self._logical(
                Split(self.cut.column, self.cut.cut,
                      Split(node.column, node.cut, left.node.left, right.node.left),  # type: ignore[union-attr]
                      Split(node.column, node.cut, left.node.right, right.node.right)),  # type: ignore[union-attr]
                left, right, "pushup"))
        if node.column == self.cut.column and left.ptop and self.cut.cut < node.cut:
            candidates.append(self._logical(
                Split(self.cut.column, self.cut.cut, left.node.left,  # type: ignore[union-attr]
                      Split(node.column, node.cut, left.node.right, right.node)),  # type: ignore[union-attr]
                left, right, "rotate"))
        if node.column == self.cut.column and right.ptop and self.cut.cut > node.cut:
            candidates.append(self._logical(
                Split(self.cut.column, self.cut.cut,
                      Split(node.column, node.cut, left.node, right.node.left),  # type: ignore[union-attr]
                      right.node.right),  # type: ignore[union-attr]
                left, right, "rotate"))
        for candidate in candidates:
            if candidate is not None and _better(candidate, best, self.model, node, self.options, info.costs):
                best = candidate
        if best.node is None:
            assert best.build is not None
            best = replace(best, node=best.build(), build=None)
        return best

    def _swap(self, node: Split, low: np.ndarray, high: np.ndarray, info) -> _Plan | None:
        cost = self.options.write_multiplier * info.rewrite_rows
        if self.options.objective == "net" and info.costs.sum() <= cost:
            # Even if no window query read a row below afterwards the swap would not pay; every
            # plan the search keeps has a net benefit >= 0 (doing nothing has 0), so this one
            # could not win: skip the what-if, the dearest step of the search.
            return None
        if not self.model.separates(node, low, high, self.cut.column, self.cut.cut):
            return None  # no window query lies on one side of the new cut: it could skip nothing
        costs = self.model.swap_costs(node, low, high, self.cut.column, self.cut.cut)
        if costs is None or info.costs.sum() - costs.sum() <= 0:
            return None
        name = f"swap column {node.column} <= {node.cut} for column {self.cut.column} <= {self.cut.cut}"
        build = lambda: self.model.swapped(node, low, high, self.cut.column, self.cut.cut)  # noqa: E731
        return _Plan(None, costs, cost, True, True, True, steps=(name,), build=build)

    def _logical(self, new: Split, left: _Plan, right: _Plan, name: str) -> _Plan:
        return _Plan(new, left.costs + right.costs, left.cost + right.cost, left.fully_accessed and right.fully_accessed,
                     True, True, logical=True, steps=left.steps + right.steps + (name,))


def _better(a: _Plan, b: _Plan, model: CostModel, node: Node, options: OptimizerOptions, base: np.ndarray | None = None) -> bool:
    """Whether plan a beats plan b; logical transformations win ties (they are free)."""
    if base is None:
        base = model.info(node, np.full(model.values.shape[1], -np.inf), np.full(model.values.shape[1], np.inf)).costs
    sa, sb = _score(a, base, options), _score(b, base, options)
    return sa > sb or (sa == sb and a.logical and not b.logical)


def _score(plan: _Plan, base: np.ndarray, options: OptimizerOptions) -> float:
    benefit = float(base.sum() - plan.costs.sum())
    if options.objective == "net":
        return benefit - plan.cost
    if plan.cost == 0:
        return np.inf if benefit > 0 else 0.0
    return benefit / plan.cost


def _finish(tree: PartitionTree, root: Node, benefit: float, steps: tuple[str, ...], options: OptimizerOptions) -> RepartitionPlan | None:
    old = {leaf.block: leaf for leaf in tree.leaves}
    kept = {leaf.block for leaf in leaves_of(root) if leaf.block >= 0}
    rewritten = tuple(sorted(b for b in old if b not in kept))
    rows = float(sum(old[b].rows for b in rewritten))
    cost = options.write_multiplier * rows
    if benefit <= cost:
        return None
    counter = iter(range(int(max(old)) + 1, 1 << 62))
    numbered = map_leaves(root, lambda leaf: Leaf(next(counter), leaf.rows, leaf.mbrs) if leaf.block < 0 else leaf)
    new_tree = PartitionTree(tree.schema, numbered)
    new_blocks = tuple(sorted(set(new_tree.block_ids.tolist()) - set(old)))
    return RepartitionPlan(new_tree, rewritten, new_blocks, rows, float(benefit), cost, steps)
