"""Adaptive repartition policies: look at the logged workload and the tree, propose a change.

A policy is anything with a ``name`` and ``propose(tree, workload, sample)``; the managed
table prices nothing itself: it rewrites exactly the blocks a change lists and records the
benefit and cost the policy reported.

>>> import numpy as np
>>> from skipstone.layout import AmoebaAdaptive, LayoutData, Query, build_kd_tree
>>> x = np.repeat(np.arange(8.0), 100); y = np.tile(np.arange(100.0), 8)
>>> data = LayoutData.from_columns({"x": x, "y": y})
>>> tree = build_kd_tree(data, block_rows=400, columns=["y"])      # two blocks cut on y
>>> q = Query.from_json({"column": "x", "op": "<=", "value": 3}, tree.schema)
>>> change = AmoebaAdaptive(window=10).propose(tree, [q] * 9, data)
>>> change.rewritten_blocks, change.benefit > change.cost
((0, 1), True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, runtime_checkable

from skipstone.layout.adaptive.optimizer import OptimizerOptions, best_plan
from skipstone.layout.adaptive.window import QueryWindow
from skipstone.layout.layout import Layout
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.tree import PartitionTree


@dataclass(frozen=True, eq=False)
class LayoutChange:
    """A new tree, the existing blocks it replaces, and why it pays: ``benefit`` and ``cost``
    in the policy's unit (Amoeba: rows read saved over the window, c x rows rewritten)."""

    tree: Layout
    rewritten_blocks: tuple[int, ...]
    benefit: float
    cost: float
    description: str = ""


@runtime_checkable
class LayoutPolicy(Protocol):
    """Proposes a layout change from the workload (oldest query first), or None to keep the tree.

    ``tree`` is the table's layout: a ``PartitionTree``, or a ``CurveLayout`` for Z-order and
    Hilbert tables. ``sample`` is a uniform sample of the table's rows, encoded with
    ``tree.schema``; its rows stand for the tree's rows in proportion. Blocks the change does
    not list keep their files, so a change must route the rows of the blocks it lists only to
    blocks it creates.

    A policy that needs the table's target block size may also define
    ``for_table(block_rows) -> LayoutPolicy``; the table calls it before ``propose``.
    """

    name: str

    def propose(self, tree: Layout, workload: Sequence[Query], sample: LayoutData) -> LayoutChange | None: ...


@dataclass(frozen=True)
class AmoebaAdaptive:
    """Amoeba's adaptive repartitioning over the last ``window`` logged queries: for each
    distinct query, getBestPlan (swaps, pushups, rotates) gated by benefit > c x cost with
    c = ``write_multiplier``; the best plan is applied and the search repeated, up to
    ``max_rounds`` plans in one change."""

    window: int = 100
    write_multiplier: float = 4.0
    max_rounds: int = 8
    name: str = "AmoebaAdaptive"

    def propose(self, tree: Layout, workload: Sequence[Query], sample: LayoutData) -> LayoutChange | None:
        if not isinstance(tree, PartitionTree):
            raise ValueError(f"{self.name} adapts partitioning trees; a {type(tree).__name__} table can be "
                             "rebuilt by PawRebuild instead")
        queries = [q for q in workload[-self.window:] if not q.boxes.is_empty]
        if not queries:
            return None
        window = QueryWindow(float(len(queries) + 1))
        for t, q in enumerate(queries):
            window = window.add(float(t), q)
        distinct = list({(q.boxes.low.tobytes(), q.boxes.high.tobytes()): q for q in queries}.values())
        options = OptimizerOptions(write_multiplier=self.write_multiplier)
        current, benefit, steps = tree, 0.0, []
        for _ in range(self.max_rounds):
            plans = [p for p in (best_plan(current, window, q, sample, options) for q in distinct) if p is not None]
            if not plans:
                break
            best = max(plans, key=lambda p: p.benefit - p.cost)
            current, benefit = best.tree, benefit + best.benefit
            steps.extend(best.steps)
        if current is tree:
            return None
        kept = set(current.block_ids.tolist())
        rewritten = tuple(sorted(int(b) for b in tree.block_ids.tolist() if b not in kept))
        rows = sum(leaf.rows for leaf in tree.leaves if leaf.block in rewritten)
        return LayoutChange(current, rewritten, benefit, self.write_multiplier * rows, "; ".join(steps))
