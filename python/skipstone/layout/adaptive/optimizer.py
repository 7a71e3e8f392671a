"""Amoeba's adaptive optimizer: getSubtreePlan (Algorithm 2) and getBestPlan (Algorithm 3).

For a query, each of its predicates A_p is tried as a swap (replace a fully accessed node's
cut by A_p, rewriting that subtree), a pushup (A_p on both children becomes the parent's cut;
free) or a rotate (A_p under a node on the same attribute moves up; free), bottom-up, keeping
at each node the best plan. The greedy takes the best predicate, applies it, and tries the
rest on the result. The plan is used only if its benefit over the query window exceeds its
cost, c times the price of what it rewrites plus the fixed cost of a rewrite; only blocks the
query reads are ever rewritten. Prices come from `OptimizerOptions.cost_model`: rows read
(``RowsRead``, the paper's unit and the default here) or what Spark pays (``SparkCost``).

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

from dataclasses import dataclass

import numpy as np

from skipstone.layout.adaptive.costs import CostModel, QueryBoxes
from skipstone.layout.cost_model import CostModel as Pricing
from skipstone.layout.cost_model import RowsRead, rewrite_cost, write_costs
from skipstone.layout.adaptive.search import Cut, Search
from skipstone.layout.adaptive.window import QueryWindow
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.tree import Leaf, Node, PartitionTree, leaves_of, map_leaves

OBJECTIVES = ("net", "ratio")


@dataclass(frozen=True)
class OptimizerOptions:
    """`write_multiplier` is Amoeba's c (a written unit costs c read units). `objective` ranks
    plans: "ratio" is the paper's benefit/cost; "net" (ours, the default) is benefit - cost,
    which is what the final benefit > cost gate measures. `cost_model` prices reads and
    rewrites; `charge_job` False leaves out its fixed cost of a rewrite (a policy that adds a
    plan to a rewrite it already pays for).

    >>> from skipstone.layout import OptimizerOptions
    >>> OptimizerOptions(write_multiplier=1).objective
    'net'
    """

    write_multiplier: float = 4.0
    objective: str = "net"
    cost_model: Pricing = RowsRead()
    charge_job: bool = True

    def __post_init__(self) -> None:
        if self.write_multiplier < 0:
            raise ValueError(f"write_multiplier must not be negative, got {self.write_multiplier}")
        if self.objective not in OBJECTIVES:
            raise ValueError(f"unknown objective {self.objective!r}; use one of {OBJECTIVES}")


@dataclass(frozen=True, eq=False)
class RepartitionPlan:
    """What to do: rewrite `rewritten_blocks` (existing blocks the query reads) into the new
    blocks of `tree`, numbered after every existing block.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import Range, RowsRead
    >>> tree = Range(columns=["b"], block_rows=1000).build(data, 1000, 8000)   # ordered by b, queried on a
    >>> from skipstone.layout import OptimizerOptions, QueryWindow, best_plan
    >>> window = QueryWindow(100)
    >>> for time in range(20):
    ...     window = window.add(time, query)
    >>> plan = best_plan(tree, window, query, data, OptimizerOptions(write_multiplier=1))
    >>> plan.rewritten_blocks, plan.tree.cost(query), plan.steps[0]
    ((0, 1, 2, 3, 4, 5, 6, 7), 1000.0, 'swap column 1 <= 12.0 for column 0 <= 999.9999999999999')
    """

    tree: PartitionTree
    rewritten_blocks: tuple[int, ...]
    new_blocks: tuple[int, ...]
    rewritten_rows: float
    benefit: float  # what the window's queries would no longer pay (the cost model's unit)
    cost: float  # write_multiplier * (the rewritten blocks' price + the fixed cost of a rewrite)
    steps: tuple[str, ...]  # the transformations, for logs


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
    proportion (the tree's total rows / sample rows).

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import Range, RowsRead
    >>> tree = Range(columns=["b"], block_rows=1000).build(data, 1000, 8000)   # ordered by b, queried on a
    >>> from skipstone.layout import OptimizerOptions, QueryWindow, best_plan
    >>> window = QueryWindow(100)
    >>> for time in range(20):
    ...     window = window.add(time, query)
    >>> plan = best_plan(tree, window, query, data, OptimizerOptions(write_multiplier=1))
    >>> plan.benefit > plan.cost, plan.tree.cost(query)
    (True, 1000.0)
    """
    if sample.schema != tree.schema:
        raise ValueError("the sample's schema differs from the tree's")
    width = tree.schema.width
    cuts = query_cuts(query)
    model = CostModel(tree, QueryBoxes(window.queries, width), QueryBoxes([query], width), sample,
                      [(c.column, c.cut) for c in cuts], options.cost_model)
    search = Search(model, cuts, options.write_multiplier, options.objective)
    low, high = np.full(width, -np.inf), np.full(width, np.inf)
    before = model.info(tree.root, low, high).costs.sum()
    root, steps = tree.root, ()
    remaining = list(range(len(cuts)))
    while remaining:
        plans = search.plans(root, low, high)
        changed = [k for k in remaining if plans.changed[k]]
        if not changed:
            break
        scores = search.scores(model.info(root, low, high).costs.sum(), plans.costs[changed], plans.cost[changed])
        best = 0
        for i in range(1, len(changed)):  # the first best wins; a free plan wins a tie
            if scores[i] > scores[best] or (scores[i] == scores[best] and plans.logical[changed[i]] and not plans.logical[changed[best]]):
                best = i
        k = changed[best]
        root, steps = plans.nodes[k], steps + plans.steps[k]
        remaining.remove(k)
        search.remaining[k] = False
    if root is tree.root:
        return None
    # the gate is checked once, at the end: one predicate may not pay, several together may
    return _finish(tree, root, before - model.info(root, low, high).costs.sum(), steps, options)


def _finish(tree: PartitionTree, root: Node, benefit: float, steps: tuple[str, ...], options: OptimizerOptions) -> RepartitionPlan | None:
    old = {leaf.block: leaf for leaf in tree.leaves}
    kept = {leaf.block for leaf in leaves_of(root) if leaf.block >= 0}
    rewritten = tuple(sorted(b for b in old if b not in kept))
    rows = np.array([old[b].rows for b in rewritten], dtype=np.float64)
    pricing = options.cost_model if options.charge_job else _WithoutJob(options.cost_model)
    cost = rewrite_cost(pricing, rows, options.write_multiplier)
    if benefit <= cost:
        return None
    counter = iter(range(int(max(old)) + 1, 1 << 62))
    numbered = map_leaves(root, lambda leaf: Leaf(next(counter), leaf.rows, leaf.mbrs) if leaf.block < 0 else leaf)
    new_tree = PartitionTree(tree.schema, numbered)
    new_blocks = tuple(sorted(set(new_tree.block_ids.tolist()) - set(old)))
    return RepartitionPlan(new_tree, rewritten, new_blocks, float(rows.sum()), float(benefit), cost, steps)


@dataclass(frozen=True)
class _WithoutJob:
    """A cost model's prices without its fixed cost of a rewrite."""

    model: Pricing
    job_cost: float = 0.0

    def block_costs(self, rows: np.ndarray) -> np.ndarray:
        return self.model.block_costs(rows)

    def write_costs(self, rows: np.ndarray) -> np.ndarray:
        return write_costs(self.model, rows)
