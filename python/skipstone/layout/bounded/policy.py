"""BoundedRewrite: re-lay out bounded units once the workload has paid for them (rent-or-buy).

Rewriting whatever a window of queries touches costs tens of full scans on Spark (a rewrite
reads and writes every column, a query reads a few), and a window of 30 queries never pays it
back. Systems that keep data clustered rewrite bounded units instead and rewrite them only
once the workload has paid: this policy does both.

1. **Units.** The hot queries (recent and frequent, ``bounded/patterns.py``) straddle some
   blocks: they read them for few of their rows (``bounded/straddle.py``); every other block is
   sealed and never rewritten. A unit is a subtree all of whose blocks are straddled and that
   holds at least two blocks' rows (so a re-cut can make two blocks): a leaf, a few siblings,
   or a larger subtree (``bounded/units.py``). Each is re-laid out over its own region, cut where
   the hot queries cut (``bounded/recut.py``), so routing stays exact.
2. **Regret and the trigger.** For each unit, the regret is what the queries since its
   pattern began, and since its blocks were written when the table says (``block_births``),
   would have saved under its re-layout (``bounded/regret.py``). A unit is ready once its
   regret reaches the cost of rewriting it, c x its write price: the ski-rental rule, which in
   the classic problem (one purchase, exact savings) pays at most twice what an oracle that
   knew the future would.
3. **Budget.** Ready units are taken by what they save a recent query per byte rewritten,
   best first, without overlap, until ``budget_bytes`` is spent; the change is proposed when
   their regret together reaches their cost plus the one job's fixed cost.

The change reports the unit, budget, regret, break-even query count (cost / the recent saving
per query), the horizon (how long the log's patterns last, in queries) and the benefit predicted
over it, in its description and as fields a table can log (``LayoutChange.history_fields``).
Everything is computed from the logged workload (oldest first) and the policy's fields, so the
policy is a value: the same log gives the same change.

>>> import numpy as np
>>> from skipstone.layout import BoundedRewrite, LayoutData, Query, RowsRead, build_kd_tree
>>> x = np.repeat(np.arange(8.0), 100); y = np.tile(np.arange(100.0), 8)
>>> data = LayoutData.from_columns({"x": x, "y": y})
>>> tree = build_kd_tree(data, block_rows=400, columns=["y"])          # two blocks cut on y
>>> q = Query.from_json({"column": "x", "op": "<=", "value": 1}, tree.schema)
>>> policy = BoundedRewrite(block_rows=200, budget_bytes=800, bytes_per_row=1,
...                         write_multiplier=4, cost_model=RowsRead())
>>> print(policy.propose(tree, [q] * 5, data))                         # regret 5 x 600 < cost 4 x 800
None
>>> change = policy.propose(tree, [q] * 6, data)                       # 6 x 600 >= 3200
>>> change.rewritten_blocks, change.regret, change.cost, change.break_even_queries
((0, 1), 3600.0, 3200.0, 5.333333333333333)
"""

from __future__ import annotations

import logging
import zlib
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import numpy as np

from skipstone.layout.bounded.patterns import WorkloadPatterns, template_of, workload_patterns
from skipstone.layout.bounded.recut import recut
from skipstone.layout.bounded.regret import AccountedQueries, CurrentReads, PricedUnit, Proposal, price_units
from skipstone.layout.bounded.straddle import query_block_use
from skipstone.layout.bounded.units import cut_columns, describe_path, replace_units, tree_units
from skipstone.layout.builders.node_queries import NodeQueries
from skipstone.layout.cost_model import (CostModel, SparkCost, TablePrices, with_table_bytes, with_table_file_rows,
                                         with_table_prices, with_table_read_share, write_costs,
                                         write_multiplier_or_default)
from skipstone.layout.layout import Layout
from skipstone.layout.policies import LayoutChange
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.stats_pricing import StatsPricing
from skipstone.layout.tree import Leaf, Node, PartitionTree, renumber

log = logging.getLogger(__name__)

DEFAULT_BUDGET_BYTES = 256e6  # a step rewrites at most this much, as Iceberg's max-files-to-rewrite bounds a job


@dataclass(frozen=True)
class BoundedRewrite:
    """A ``LayoutPolicy``: re-lay out bounded units of the tree once the logged queries' regret
    pays for them.

    ``window``: the recent queries (hot ones are drawn from them; the rate of saving is
    measured over them); ``hot_share``: the share of the window a template needs to be hot;
    ``seal_fraction``: a block whose hot readers find at least this share of matching rows is
    sealed; ``budget_bytes``: what one change may rewrite; ``block_rows`` None takes the
    table's (``for_table``) or else the tree's mean block; ``bytes_per_row`` None takes the
    cost model's or the table's (``with_bytes_per_row``). Prices come from ``cost_model``, a
    rewrite costs ``write_multiplier`` x its write price plus the model's job cost, once;
    ``write_multiplier`` None is the table's calibration when it has one (``with_prices``), else
    the library's (``SPARK_WRITE_MULTIPLIER``).

    ``block_births`` (block id, log position) pairs say from which logged query on a block
    existed (``with_block_births``; a table knows it from its history): a unit's regret counts
    no query from before its blocks were written, as the rent of a ski-rental restarts when one
    buys. Blocks not listed count as old as the log; without births, a region rewritten earlier
    in a phase is priced as if the phase's earlier queries had run on it, which can re-cut it
    sooner than a strict rent-or-buy would.

    >>> from skipstone.layout import BoundedRewrite
    >>> BoundedRewrite(budget_bytes=64e6).name
    'BoundedRewrite'
    >>> t.optimize(BoundedRewrite())      # a managed table prices it with its own bytes per row  # doctest: +SKIP
    """

    window: int = 100
    budget_bytes: float = DEFAULT_BUDGET_BYTES
    hot_share: float = 0.1
    seal_fraction: float = 0.5
    write_multiplier: float | None = None
    cost_model: CostModel = SparkCost()
    bytes_per_row: float | None = None
    block_rows: float | None = None
    block_births: tuple[tuple[int, int], ...] = ()
    name: str = "BoundedRewrite"

    def __post_init__(self) -> None:
        for field in ("window", "budget_bytes", "hot_share", "seal_fraction"):
            if not getattr(self, field) > 0:
                raise ValueError(f"BoundedRewrite.{field} must be positive, got {getattr(self, field)}")
        for field in ("write_multiplier", "bytes_per_row", "block_rows"):
            value = getattr(self, field)
            if value is not None and not value > 0:
                raise ValueError(f"BoundedRewrite.{field} must be positive or None, got {value}")

    def for_table(self, block_rows: float) -> BoundedRewrite:
        """This policy with the table's target block size, unless one was given."""
        return self if self.block_rows is not None else replace(self, block_rows=float(block_rows))

    def with_file_rows(self, rows_per_file: float) -> BoundedRewrite:
        """This policy counting the files of a block by the table's file size limit, unless its model has one."""
        return replace(self, cost_model=with_table_file_rows(self.cost_model, rows_per_file))

    def with_bytes_per_row(self, bytes_per_row: float) -> BoundedRewrite:
        """This policy with the table's bytes per row (budget and prices), unless it has its own."""
        own = self.bytes_per_row if self.bytes_per_row is not None else float(bytes_per_row)
        return replace(self, bytes_per_row=own, cost_model=with_table_bytes(self.cost_model, bytes_per_row))

    def with_read_share(self, read_share: float) -> BoundedRewrite:
        """This policy pricing a query's bytes at the share of each row its table's queries read
        (from the workload log), unless its model has one."""
        return replace(self, cost_model=with_table_read_share(self.cost_model, read_share))

    def with_prices(self, prices: TablePrices) -> BoundedRewrite:
        """This policy with the table's calibrated prices (``t.calibrate()``) where it was given none:
        its write multiplier when None, its ``SparkCost``'s file and job prices when None."""
        return replace(self, write_multiplier=self.write_multiplier if self.write_multiplier is not None
                       else prices.write_multiplier, cost_model=with_table_prices(self.cost_model, prices))

    def with_block_births(self, births: Mapping[int, int]) -> BoundedRewrite:
        """This policy knowing, per block id, the log position of the first query that ran
        while the block existed (the number of queries logged before the commit that wrote it)."""
        return replace(self, block_births=tuple(sorted((int(b), int(p)) for b, p in births.items())))

    def candidates(self, tree: Layout, workload: Sequence[Query], sample: LayoutData) -> list[PricedUnit]:
        """Every unit the hot queries straddle that fits the budget, re-laid out for each hot
        pattern (each hot template alone, and all of them together) and priced: what the policy
        chooses from, and what a table can show while nothing is ready yet."""
        return self._assess(tree, workload, sample, only_payable=False)[1]

    def propose(self, tree: Layout, workload: Sequence[Query], sample: LayoutData) -> LayoutChange | None:
        """The ready units within the budget as one change, once their regret reaches their
        cost and the job's; None while the workload is still paying rent."""
        patterns, candidates = self._assess(tree, workload, sample, only_payable=True)
        chosen = self._within_budget([c for c in candidates if c.paid])
        job = self._c * getattr(self.cost_model, "job_cost", 0.0)
        regret = sum(c.regret for c in chosen)
        cost = sum(c.write_cost for c in chosen) + job
        if not chosen or regret < cost:  # rent until the rent paid reaches the price of buying
            log.info("%s declines: %s", self.name, "no unit within the budget is ready" if not chosen else
                     f"the regret of {len(chosen)} ready units, {regret:.4g}, is under their cost {cost:.4g}")
            return None
        return self._change(_partition_tree(tree, self.name), chosen, regret, cost, patterns)

    def _assess(self, tree: Layout, workload: Sequence[Query], sample: LayoutData, only_payable: bool
                ) -> tuple[WorkloadPatterns, list[PricedUnit]]:
        """The patterns and the priced candidates; ``only_payable`` skips re-cutting units whose
        queries have not even paid their write cost on them today (they cannot be paid, so the
        choice is the same; re-cutting every subtree of a large tree is what costs)."""
        tree = _partition_tree(tree, self.name)
        if sample.schema != tree.schema:
            raise ValueError(f"{self.name}: the sample's schema differs from the tree's")
        queries = list(workload)  # positions are the log's: births refer to them
        patterns = workload_patterns(workload, self.window, self.hot_share)  # a LoggedWorkload's runs are kept
        if not patterns.patterns or sample.rows == 0:
            return patterns, []
        positions = tree.route(sample)
        accounted = AccountedQueries.of(queries, patterns.first_accounted)
        # what the queries read is what the files' min/max cannot rule out, not the cuts alone
        pricing = StatsPricing.of(tree, sample, positions=positions)
        current = CurrentReads.of(tree, accounted, self.cost_model, pricing)
        use = query_block_use(tree, sample, [queries[p] for p in patterns.hot], positions, pricing)
        straddled = use.of(range(len(patterns.hot))).straddled(self.seal_fraction)  # all hot queries seal
        row_of = {p: k for k, p in enumerate(patterns.hot)}
        priced: list[PricedUnit] = []
        for pattern in patterns.patterns:
            fitted, held_out = _fitted_positions(queries, pattern.positions)
            hot = [queries[p] for p in fitted]
            read = use.of([row_of[p] for p in pattern.positions]).reads > 0
            label = " | ".join(", ".join(tree.schema.names[c] for c in sorted(t)) for t in pattern.templates)
            # regret since the pattern began (and its blocks were written); the rate over its
            # queries of the window, so that a pattern that just took over is not judged by the
            # queries of the one it replaced
            since = (pattern.start, max(pattern.start, patterns.window_start))
            most_regret = current.most_regret_before(accounted.counts_since(pattern.start)) if only_payable else None
            proposals = self._proposals(tree, sample, positions, straddled, read, most_regret, hot, label, since,
                                        held_out)
            priced += price_units(tree, proposals, accounted, self.cost_model, self._c,
                                  self._bytes_per_row(), current, sample, positions)
        return patterns, priced

    @property
    def _c(self) -> float:
        return write_multiplier_or_default(self.write_multiplier)

    def _bytes_per_row(self) -> float:
        known = self.bytes_per_row if self.bytes_per_row is not None else getattr(self.cost_model, "bytes_per_row", None)
        if known is None:
            raise ValueError(f"{self.name}.bytes_per_row is not known: give it, or optimize a managed table, "
                             "which measures it from the table's files")
        return float(known)

    def _proposals(self, tree: PartitionTree, sample: LayoutData, positions: np.ndarray, straddled: np.ndarray,
                   read: np.ndarray, most_regret: np.ndarray | None, hot: Sequence[Query], label: str,
                   since: tuple[int, int], fitted: frozenset[int] = frozenset()) -> list[Proposal]:
        """Each unit of straddled blocks, some of which the ``hot`` queries ``read``, that fits
        the budget, could already be paid (``most_regret``: ``CurrentReads.most_regret_before``;
        None: any) and can be cut, with its new subtree (``bounded/recut.py``) cut for them."""
        block_rows = self.block_rows or tree.total_rows / max(1, tree.block_count)
        straddled_before = np.concatenate([[0], np.cumsum(straddled)])
        read_before = np.concatenate([[0], np.cumsum(read)])
        order = np.argsort(positions, kind="stable")
        starts = np.searchsorted(positions[order], np.arange(tree.block_count + 1))
        width = tree.schema.width
        hot_boxes = NodeQueries.of(hot, width)
        hot_columns = _by_frequency(hot, width)
        bytes_per_row = self._bytes_per_row()
        write_before = np.concatenate([[0.0], np.cumsum(self._c * write_costs(self.cost_model, tree.block_rows))])
        births = dict(self.block_births)
        born = np.array([births.get(int(b), 0) for b in tree.block_ids], dtype=np.int64)
        out = []
        for unit in tree_units(tree):
            all_straddled = straddled_before[unit.end] - straddled_before[unit.first] == unit.end - unit.first
            some_read = read_before[unit.end] > read_before[unit.first]
            rows = order[starts[unit.first]:starts[unit.end]]
            fits = unit.rows >= 2 * block_rows and len(rows) >= 2 and unit.rows * bytes_per_row <= self.budget_bytes
            payable = (most_regret is None
                       or most_regret[unit.end] - most_regret[unit.first] >= write_before[unit.end] - write_before[unit.first])
            if not (all_straddled and some_read and fits and payable):
                continue
            box = unit.region.bounding_box()
            subtree = recut(sample.values[rows], hot_boxes.clip(box.low[0], box.high[0]), unit.rows, block_rows,
                            hot_columns, cut_columns(unit.node))
            if not isinstance(subtree, Leaf):
                regret_from = max(since[0], int(born[unit.first:unit.end].max()))
                out.append(Proposal(unit, subtree, label, regret_from, since[1], fitted))
        return out

    def _within_budget(self, ready: list[PricedUnit]) -> list[PricedUnit]:
        """The ready units by saving per byte, best first, skipping any that overlaps one taken
        or no longer fits the budget."""
        chosen: list[PricedUnit] = []
        spent = 0.0
        for c in sorted(ready, key=lambda c: (-c.rate_per_byte, c.unit.first, -c.unit.end)):
            if spent + c.bytes > self.budget_bytes or any(t.unit.contains(c.unit) or c.unit.contains(t.unit) for t in chosen):
                continue
            chosen.append(c)
            spent += c.bytes
        return sorted(chosen, key=lambda c: c.unit.first)

    def _change(self, tree: PartitionTree, chosen: list[PricedUnit], regret: float, cost: float,
                patterns: WorkloadPatterns) -> LayoutChange:
        next_block = int(tree.block_ids.max()) + 1
        replacements = {}
        for c in chosen:  # new blocks are numbered after every existing one, in tree order
            replacements[c.unit.path] = renumber(c.subtree, next_block)
            next_block += PartitionTree(tree.schema, c.subtree).block_count
        new_tree = PartitionTree(tree.schema, replace_units(tree.root, replacements))
        rewritten = tuple(sorted(int(tree.block_ids[p]) for c in chosen for p in c.unit.blocks))
        rate = sum(c.rate for c in chosen)
        rewritten_bytes = sum(c.bytes for c in chosen)
        break_even = cost / rate
        predicted = rate * patterns.horizon
        unit = "; ".join(f"{describe_path(tree, c.unit.path)} ({len(c.unit.blocks)} blocks, cut for {c.cut_for})"
                         for c in chosen)
        description = (f"rewrite {unit}: {rewritten_bytes:.4g} of a {self.budget_bytes:.4g}-byte budget; "
                       f"regret {regret:.4g} >= cost {cost:.4g}; saves {rate:.4g} a query, break-even after "
                       f"{break_even:.1f} queries; patterns last {patterns.horizon:.0f} queries: "
                       f"predicted benefit {predicted:.4g}")
        return LayoutChange(new_tree, rewritten, regret, cost, description, unit=unit, budget_bytes=self.budget_bytes,
                            rewritten_bytes=rewritten_bytes, regret=regret, break_even_queries=break_even,
                            horizon_queries=patterns.horizon, predicted_benefit=predicted)


def _partition_tree(tree: Layout, policy: str) -> PartitionTree:
    if not isinstance(tree, PartitionTree):
        raise ValueError(f"{policy} re-lays out subtrees of partitioning trees; a {type(tree).__name__} table can be "
                         "rebuilt by PawRebuild instead")
    return tree


MIN_DISTINCT_TO_HOLD_OUT = 8


def _fitted_positions(queries: Sequence[Query], positions: Sequence[int]) -> tuple[list[int], frozenset[int]]:
    """The hot positions a unit is cut for, and the positions to leave out of its pricing.

    A subtree cut at the boundaries of some queries saves exactly those queries the most;
    priced on them, a re-layout is priced by hindsight, and the next queries, whose boundaries
    differ, save less (on Spark at SF 1, 3 to 8 times less than predicted). So when the hot
    queries are many different ones, the unit is cut for about half of them, chosen by a hash
    of each query (the same query always on the same side, whatever the order the templates
    come in), and priced on the others (``AccountedQueries.held_out_counts``). Few distinct
    queries repeating are what the next queries will be: then every one is cut for and priced.
    """
    keys = [zlib.crc32(queries[p].boxes.low.tobytes() + queries[p].boxes.high.tobytes()) for p in positions]
    if len(set(keys)) < MIN_DISTINCT_TO_HOLD_OUT:
        return list(positions), frozenset()
    fitted = [p for p, k in zip(positions, keys) if k & 1 == 0]
    if not fitted or len(fitted) == len(positions):
        return list(positions), frozenset()
    return fitted, frozenset(fitted)


def _by_frequency(hot: Sequence[Query], width: int) -> list[int]:
    """The columns the hot queries bound, most often bounded first (ties: schema order)."""
    counts = np.zeros(width, dtype=np.int64)
    for q in hot:
        counts[sorted(template_of(q))] += 1
    return [int(c) for c in np.argsort(-counts, kind="stable") if counts[c] > 0]
