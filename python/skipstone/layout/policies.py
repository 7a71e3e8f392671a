"""Adaptive repartition policies: look at the logged workload and the tree, propose a change.

A policy is anything with a ``name`` and ``propose(tree, workload, sample)``; the managed
table prices nothing itself: it rewrites exactly the blocks a change lists and records the
benefit and cost the policy reported.

The built-in policies price with a ``CostModel``: by default
``SparkCost`` calibrated on Spark, whose fixed cost per rewrite keeps a policy from rewriting
when the window's queries cannot pay the Spark job back; ``RowsRead`` is the papers' unit.

>>> import numpy as np
>>> from skipstone.layout import AmoebaAdaptive, LayoutData, Query, RowsRead, SparkCost, build_kd_tree
>>> x = np.repeat(np.arange(8.0), 100); y = np.tile(np.arange(100.0), 8)
>>> data = LayoutData.from_columns({"x": x, "y": y})
>>> tree = build_kd_tree(data, block_rows=400, columns=["y"])      # two blocks cut on y
>>> q = Query.from_json({"column": "x", "op": "<=", "value": 3}, tree.schema)
>>> change = AmoebaAdaptive(window=10, write_multiplier=4, cost_model=RowsRead()).propose(tree, [q] * 9, data)
>>> change.rewritten_blocks, change.benefit > change.cost
((0, 1), True)
>>> print(AmoebaAdaptive(window=10, cost_model=SparkCost(bytes_per_row=100)).propose(tree, [q] * 9, data))
None
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from skipstone.layout.adaptive.optimizer import OptimizerOptions, best_plan
from skipstone.layout.cost_model import (CostModel, SparkCost, TablePrices, most_any_rewrite_saves, rewrite_cost,
                                         with_table_bytes, with_table_file_rows, with_table_prices,
                                         with_table_read_share, write_multiplier_or_default)
from skipstone.layout.adaptive.window import QueryWindow
from skipstone.layout.layout import Layout
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.tree import PartitionTree

log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class LayoutChange:
    """A new tree, the existing blocks it replaces, and why it pays: ``benefit`` and ``cost``
    in the policy's unit (Amoeba: rows read saved over the window, c x rows rewritten).

    The optional fields are what a policy that rewrites bounded units on accumulated regret
    (``BoundedRewrite``) reports for a table's history; other policies leave them unset:
    ``unit`` names the rewritten units, ``budget_bytes`` bounds a step's rewrite and
    ``rewritten_bytes`` is what it rewrites, ``regret`` is what the logged queries already paid
    for lacking the change, ``break_even_queries`` how many queries at the recent rate of saving
    pay its cost, ``horizon_queries`` how long the workload's patterns last and
    ``predicted_benefit`` what the change saves over that horizon. A policy that chooses the
    layout columns (``AutoColumns``) also reports ``columns``, the ``builder`` of the new tree
    and its ``gain_per_query``; a change that rebuilds the whole table by a layout spec gives the
    ``spec``'s JSON, which the table records as its ``layout.spec`` (not a history field).

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import Range, RowsRead
    >>> tree = Range(columns=["b"], block_rows=1000).build(data, 1000, 8000)   # ordered by b, queried on a
    >>> from skipstone.layout import PawRebuild
    >>> policy = PawRebuild(cost_model=RowsRead(), write_multiplier=1, block_rows=1000)
    >>> change = policy.propose(tree, [query] * 20, data)
    >>> change.rewritten_blocks, change.benefit, change.cost
    ((0, 1, 2, 3, 4, 5, 6, 7), 140000.0, 8000.0)
    """

    tree: Layout
    rewritten_blocks: tuple[int, ...]
    benefit: float
    cost: float
    description: str = ""
    unit: str = ""
    budget_bytes: float | None = None
    rewritten_bytes: float | None = None
    regret: float | None = None
    break_even_queries: float | None = None
    horizon_queries: float | None = None
    predicted_benefit: float | None = None
    columns: tuple[str, ...] = ()
    builder: str = ""
    gain_per_query: float | None = None
    spec: Mapping[str, Any] | None = None

    def history_fields(self) -> dict[str, str | float | list[str]]:
        """The optional fields a policy set, by name, for a table to log next to benefit and cost.

        >>> from skipstone.layout import Leaf, PartitionTree, Schema
        >>> change = LayoutChange(PartitionTree(Schema(()), Leaf(1)), (0,), 5.0, 4.0, regret=5.0)
        >>> change.history_fields()
        {'regret': 5.0}
        """
        names = ("unit", "budget_bytes", "rewritten_bytes", "regret", "break_even_queries", "horizon_queries",
                 "predicted_benefit", "columns", "builder", "gain_per_query")
        fields = {n: getattr(self, n) for n in names if getattr(self, n) not in (None, "", ())}
        return {n: list(v) if isinstance(v, tuple) else v for n, v in fields.items()}


@runtime_checkable
class LayoutPolicy(Protocol):
    """Proposes a layout change from the workload (oldest query first), or None to keep the tree.

    ``tree`` is the table's layout: a ``PartitionTree``, or a ``CurveLayout`` for Z-order and
    Hilbert tables. ``sample`` is a uniform sample of the table's rows, encoded with
    ``tree.schema``; its rows stand for the tree's rows in proportion. Blocks the change does
    not list keep their files, so a change must route the rows of the blocks it lists only to
    blocks it creates.

    A policy that needs the table's target block size may also define
    ``for_table(block_rows) -> LayoutPolicy``, and one that prices bytes
    ``with_bytes_per_row(bytes_per_row) -> LayoutPolicy`` (the table's, measured from its
    files); the table calls them before ``propose``.

    >>> from skipstone.layout import AmoebaAdaptive, LayoutPolicy
    >>> isinstance(AmoebaAdaptive(), LayoutPolicy)
    True
    """

    name: str
    """The policy's name, as errors and the table's history of optimizations name it."""

    def propose(self, tree: Layout, workload: Sequence[Query], sample: LayoutData) -> LayoutChange | None:
        """The change this policy makes to ``tree`` for ``workload``, or None to keep it."""
        ...


@dataclass(frozen=True)
class AmoebaAdaptive:
    """Amoeba's adaptive repartitioning over the last ``window`` logged queries: for each
    distinct query, getBestPlan (swaps, pushups, rotates) gated by benefit > c x cost with
    c = ``write_multiplier``, both priced by ``cost_model``; the best plan is applied and the
    search repeated, up to ``max_rounds`` plans in one change. The first plan pays the
    model's fixed cost of a rewrite (one Spark job), the plans added to it do not. Plans are
    searched for the ``max_searches`` distinct queries the window pays most for (None: every
    distinct query, as the simulator does).

    The defaults are calibrated on Spark (``SparkCost()``, c measured as rewrite over read
    seconds per byte); ``cost_model=RowsRead(), write_multiplier=4`` is the paper's setting.
    ``write_multiplier`` None is the table's calibration when it has one (``with_prices``), else
    the library's (``SPARK_WRITE_MULTIPLIER``).

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import Range, RowsRead
    >>> tree = Range(columns=["b"], block_rows=1000).build(data, 1000, 8000)   # ordered by b, queried on a
    >>> from skipstone.layout import AmoebaAdaptive
    >>> change = AmoebaAdaptive(window=20, cost_model=RowsRead(), write_multiplier=1).propose(tree, [query] * 20, data)
    >>> tree.cost(query), change.tree.cost(query), change.cost
    (8000.0, 1000.0, 8000.0)
    """

    window: int = 100
    write_multiplier: float | None = None
    max_rounds: int = 8
    cost_model: CostModel = SparkCost()
    name: str = "AmoebaAdaptive"
    max_searches: int | None = 8

    def __post_init__(self) -> None:
        if self.max_searches is not None and self.max_searches < 1:
            raise ValueError(f"AmoebaAdaptive.max_searches must be at least 1 or None, got {self.max_searches}")

    def _worth_searching(self, tree: PartitionTree, queries: Sequence[Query]) -> list[Query]:
        """The distinct window queries to search plans for: those the window pays most for
        (cost today x how often it ran), at most ``max_searches`` (None: all). Each search
        still prices its plans over the whole window; the cap bounds planning time, which
        grows with the number of distinct queries (a window of random queries has as many as
        it has queries)."""
        by_key: dict[tuple[bytes, bytes], tuple[Query, int]] = {}
        for q in queries:
            key = (q.boxes.low.tobytes(), q.boxes.high.tobytes())
            by_key[key] = (q, by_key[key][1] + 1 if key in by_key else 1)
        distinct = [q for q, _ in by_key.values()]
        if self.max_searches is None or len(distinct) <= self.max_searches:
            return distinct
        weight = [tree.cost(q, self.cost_model) * n for q, n in by_key.values()]
        chosen = sorted(np.argsort(weight, kind="stable")[::-1][: self.max_searches].tolist())
        return [distinct[i] for i in chosen]

    def with_bytes_per_row(self, bytes_per_row: float) -> AmoebaAdaptive:
        """This policy pricing with the table's bytes per row, unless its model has one."""
        return replace(self, cost_model=with_table_bytes(self.cost_model, bytes_per_row))

    def with_file_rows(self, rows_per_file: float) -> AmoebaAdaptive:
        """This policy counting the files of a block by the table's file size limit, unless its model has one."""
        return replace(self, cost_model=with_table_file_rows(self.cost_model, rows_per_file))

    def with_read_share(self, read_share: float) -> AmoebaAdaptive:
        """This policy pricing a query's bytes at the share of each row its table's queries read
        (from the workload log), unless its model has one."""
        return replace(self, cost_model=with_table_read_share(self.cost_model, read_share))

    def with_prices(self, prices: TablePrices) -> AmoebaAdaptive:
        """This policy with the table's calibrated prices (``t.calibrate()``) where it was given none:
        its write multiplier when None, its ``SparkCost``'s file and job prices when None."""
        return replace(self, write_multiplier=self.write_multiplier if self.write_multiplier is not None
                       else prices.write_multiplier, cost_model=with_table_prices(self.cost_model, prices))

    def propose(self, tree: Layout, workload: Sequence[Query], sample: LayoutData) -> LayoutChange | None:
        """Amoeba's plans for the last ``window`` queries whose benefit pays ``write_multiplier`` x
        their cost, up to ``max_rounds`` in one change; None when no plan pays."""
        if not isinstance(tree, PartitionTree):
            raise ValueError(f"{self.name} adapts partitioning trees; a {type(tree).__name__} table can be "
                             "rebuilt by PawRebuild instead")
        queries = [q for q in workload[-self.window:] if not q.boxes.is_empty]
        if not queries:
            log.info("%s declines: none of the last %d logged queries filters on a layout column", self.name,
                     self.window)
            return None
        # no plan saves the window more than it pays today on the blocks the plan rewrites: when
        # no set of blocks could pay for its writing and the job, skip the search
        touches = np.sum([tree.touched(q) for q in queries], axis=0)
        c = write_multiplier_or_default(self.write_multiplier)
        bound = most_any_rewrite_saves(self.cost_model, tree.block_rows, touches, c)
        if bound <= c * getattr(self.cost_model, "job_cost", 0.0):
            log.info("%s declines: no rewrite could save %d queries more (%.4g) than its job costs", self.name,
                     len(queries), bound)
            return None
        window = QueryWindow(float(len(queries) + 1))
        for t, q in enumerate(queries):
            window = window.add(float(t), q)
        distinct = self._worth_searching(tree, queries)
        options = OptimizerOptions(write_multiplier=c, cost_model=self.cost_model)
        current, benefit, steps = tree, 0.0, []
        for _ in range(self.max_rounds):
            plans = [p for p in (best_plan(current, window, q, sample, options) for q in distinct) if p is not None]
            if not plans:
                break
            best = max(plans, key=lambda p: p.benefit - p.cost)
            current, benefit = best.tree, benefit + best.benefit
            steps.extend(best.steps)
            options = replace(options, charge_job=False)  # the rewrite is paid for: one job does all plans
        if current is tree:
            log.info("%s declines: no change to the tree pays for itself over %d queries", self.name, len(queries))
            return None
        kept = set(current.block_ids.tolist())
        rewritten = tuple(sorted(int(b) for b in tree.block_ids.tolist() if b not in kept))
        rows = np.array([leaf.rows for leaf in tree.leaves if leaf.block in rewritten], dtype=np.float64)
        cost = rewrite_cost(self.cost_model, rows, c)
        if benefit <= cost:  # each plan paid for itself; their sum is checked against the one job
            log.info("%s declines: the best change saves %.4g, less than its cost %.4g", self.name, benefit, cost)
            return None
        return LayoutChange(current, rewritten, benefit, cost, "; ".join(steps))
