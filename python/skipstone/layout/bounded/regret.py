"""What a unit's re-layout would have saved the logged queries, and saves them a query now.

A query pays for the blocks it reads (``CostModel.block_costs``: rows, or bytes plus a cost per
file opened). Replacing a unit by a new subtree changes what a query pays on the unit's blocks
only, so its saving is the price of the unit's blocks it reads today minus the price of the new
blocks it would read (negative when the re-layout makes it open more files for the same rows).
Summed over the queries since the current phase began, that is the unit's **regret**: what the
workload has already paid for not having the re-layout, the rent of the ski-rental problem.
Averaged over the last window of queries, it is the **rate** at which the re-layout would save.

New blocks are priced from their estimated rows (the unit's exact rows, divided as the sample
divides), and read when the query's boxes meet the part of the unit's region they cover. Given
the sample, blocks old and new are read as Spark skips their files: only where the query's
boxes meet those parts clipped to the box of the sample rows each holds (``StatsPricing``);
cuts alone cannot see that a block cut on one column holds a narrow range of a correlated one.

>>> import numpy as np
>>> from skipstone.layout import LayoutData, Query, RowsRead, build_kd_tree
>>> from skipstone.layout.bounded.units import tree_units
>>> from skipstone.layout.tree import Leaf, Split
>>> data = LayoutData.from_columns({"x": np.arange(100.0), "y": np.arange(100.0) % 10})
>>> tree = build_kd_tree(data, block_rows=50, columns=["y"])    # y <= 4 | y > 4, 50 rows each
>>> q = Query.from_ranges(data.schema, {"x": (0, 29)})
>>> log = AccountedQueries.of([q] * 4, first=0)
>>> root = tree_units(tree)[0]                                  # both blocks, re-cut at x <= 29
>>> relayout = Proposal(root, Split(0, 29.0, Leaf(0, 30.0), Leaf(0, 70.0)), "x", regret_from=1, rate_from=2)
>>> [c] = price_units(tree, [relayout], log, RowsRead(), 4.0, 1.0)
>>> c.savings.tolist(), c.regret, c.rate, c.write_cost
([70.0], 210.0, 70.0, 400.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from skipstone.layout.boxes import touching
from skipstone.layout.cost_model import CostModel, write_costs
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.bounded.units import TreeUnit
from skipstone.layout.stats_pricing import StatsPricing, clipped
from skipstone.layout.tree import Node, PartitionTree


@dataclass(frozen=True, eq=False)
class AccountedQueries:
    """The logged queries from position ``first`` on, each distinct query once: ``index[i]``
    is the distinct query at log position ``first + i``."""

    distinct: tuple[Query, ...]
    index: np.ndarray
    first: int

    @staticmethod
    def of(workload: Sequence[Query], first: int) -> AccountedQueries:
        keys: dict[tuple[bytes, bytes], int] = {}
        distinct: list[Query] = []
        index = []
        for q in workload[first:]:
            key = (q.boxes.low.tobytes(), q.boxes.high.tobytes())
            if key not in keys:
                keys[key] = len(distinct)
                distinct.append(q)
            index.append(keys[key])
        return AccountedQueries(tuple(distinct), np.array(index, dtype=np.int64), first)

    def counts_since(self, position: int, excluding: frozenset[int] = frozenset()) -> np.ndarray:
        """Per distinct query: how often it ran from log position ``position`` on, leaving out
        the log positions ``excluding``."""
        if position < self.first:
            raise ValueError(f"the accounting starts at query {self.first}, not {position}")
        kept = self.index[position - self.first:]
        if excluding:
            positions = np.arange(position, position + len(kept))
            kept = kept[~np.isin(positions, np.fromiter(excluding, dtype=np.int64, count=len(excluding)))]
        return np.bincount(kept, minlength=len(self.distinct)).astype(np.float64)

    def held_out_counts(self, position: int, fitted: frozenset[int]) -> np.ndarray:
        """``counts_since(position)`` estimated from the queries a re-layout was not cut for:
        the counts without the ``fitted`` positions, scaled up to stand for every position
        since ``position``. A subtree cut at the boundaries of some queries saves those queries
        the most; counting them would price the re-layout by hindsight, and the next queries,
        whose boundaries differ, would save less (on Spark, 3 to 8 times less)."""
        every = len(self.index) - (position - self.first)
        held = self.counts_since(position, fitted)
        total = float(held.sum())
        return held * (every / total) if total > 0 else held


@dataclass(frozen=True, eq=False)
class CurrentReads:
    """What each distinct accounted query pays for each block of the tree today: the block's
    price where the query reads it, 0 elsewhere (rows: distinct queries, columns: blocks)."""

    paid: np.ndarray

    @staticmethod
    def of(tree: PartitionTree, queries: AccountedQueries, model: CostModel,
           pricing: StatsPricing | None = None) -> CurrentReads:
        """``pricing``: the tree's blocks as their statistics describe them; None: by its cuts."""
        boxes = _descriptor_arrays(tree) if pricing is None else (pricing.low, pricing.high, pricing.owner,
                                                                   tree.block_count)
        touched = _touch_matrix(queries.distinct, *boxes)
        return CurrentReads(touched * model.block_costs(tree.block_rows)[None, :])

    def most_regret_before(self, counts: np.ndarray) -> np.ndarray:
        """Prefix sums over block positions of what the queries (``counts`` per distinct query)
        paid: a unit of blocks ``first .. end - 1`` cannot have saved them more than
        ``out[end] - out[first]``, whatever its re-layout, so a unit whose bound is below its
        write cost need not be re-cut to know it is not paid."""
        return np.concatenate([[0.0], np.cumsum(counts @ self.paid)])


@dataclass(frozen=True, eq=False)
class Proposal:
    """A unit and the subtree to replace it, cut for the hot queries of ``cut_for`` (for logs).
    Regret counts the queries from log position ``regret_from`` on: since the pattern began,
    and not before the unit's blocks were written (rent restarts when one buys). The rate is
    measured over the queries from ``rate_from`` on."""

    unit: TreeUnit
    subtree: Node  # leaves numbered 0; rows estimated
    cut_for: str = ""
    regret_from: int = 0
    rate_from: int = 0
    fitted: frozenset[int] = frozenset()  # log positions of the queries the subtree was cut for: priced on the others


@dataclass(frozen=True, eq=False)
class PricedUnit:
    """A unit, its proposed subtree, and what that re-layout is worth."""

    unit: TreeUnit
    subtree: Node  # leaves numbered 0; rows estimated
    cut_for: str
    savings: np.ndarray  # per distinct accounted query: what it would no longer pay on the unit
    regret: float  # the savings summed over the queries since regret began to count
    rate: float  # the mean saving of a recent query
    write_cost: float  # c x writing the unit's blocks (a change's fixed job cost is paid once, by the change)
    bytes: float  # the unit's bytes: what rewriting it reads and writes

    @property
    def rate_per_byte(self) -> float:
        return self.rate / self.bytes if self.bytes > 0 else 0.0

    @property
    def paid(self) -> bool:
        """Whether the queries have already paid this unit's rewrite in regret (rent-or-buy)."""
        return self.rate > 0 and self.regret >= self.write_cost


def price_units(tree: PartitionTree, proposals: Sequence[Proposal], queries: AccountedQueries,
                model: CostModel, write_multiplier: float, bytes_per_row: float,
                current: CurrentReads | None = None, sample: LayoutData | None = None,
                positions: np.ndarray | None = None) -> list[PricedUnit]:
    """Each proposal (a unit of ``tree`` and the subtree to replace it) priced over ``queries``;
    ``current`` is ``CurrentReads.of(tree, queries, model)`` when the caller has it. With the
    ``sample`` (routed to ``positions`` in ``tree``), new blocks are read as their statistics
    will describe them, as ``current`` should then be."""
    if not proposals:
        return []
    current = CurrentReads.of(tree, queries, model) if current is None else current
    low, high, owner, leaf_rows, spans = _new_leaf_regions(tree, proposals, sample, positions)
    after = _touch_matrix(queries.distinct, low, high, owner, len(leaf_rows))
    new_prices = model.block_costs(leaf_rows)
    out = []
    for proposal, (start, end) in zip(proposals, spans):
        unit = proposal.unit
        paid_today = current.paid[:, unit.first:unit.end].sum(axis=1)
        paid_after = after[:, start:end].astype(np.float64) @ new_prices[start:end]
        savings = paid_today - paid_after
        recent = queries.held_out_counts(proposal.rate_from, proposal.fitted)
        rate = float(savings @ recent) / max(1.0, float(recent.sum()))
        write = write_multiplier * float(write_costs(model, tree.block_rows[unit.first:unit.end]).sum())
        regret = float(savings @ queries.held_out_counts(proposal.regret_from, proposal.fitted))
        out.append(PricedUnit(unit, proposal.subtree, proposal.cut_for, savings, regret, rate, write,
                              unit.rows * bytes_per_row))
    return out


def _descriptor_arrays(tree: PartitionTree) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    d = tree.descriptors()
    return d.low, d.high, d.owner, tree.block_count


def _new_leaf_regions(tree: PartitionTree, proposals: Sequence[Proposal], sample: LayoutData | None = None,
                      positions: np.ndarray | None = None):
    """The new leaves of every proposal, stacked: their boxes (each leaf's region within its
    unit's region; with the ``sample`` routed to ``positions``, clipped to the box of the
    unit's sample rows each leaf would hold), the leaf each box describes, each leaf's rows,
    and per proposal the range of its leaves."""
    lows, highs, owners, rows, spans = [], [], [], [], []
    leaves = 0
    for proposal in proposals:
        shape = PartitionTree(tree.schema, proposal.subtree)
        d = shape.descriptors()
        region = proposal.unit.region
        low = np.maximum(d.low[:, None, :], region.low[None, :, :]).reshape(-1, tree.schema.width)
        high = np.minimum(d.high[:, None, :], region.high[None, :, :]).reshape(-1, tree.schema.width)
        owner = np.repeat(d.owner, region.count)
        if sample is not None and positions is not None:
            inside = sample.values[(positions >= proposal.unit.first) & (positions < proposal.unit.end)]
            low, high = clipped(low, high, owner, inside, shape.route(LayoutData(tree.schema, inside)),
                                shape.block_count)
        keep = np.all(low < high, axis=1)
        lows.append(low[keep])
        highs.append(high[keep])
        owners.append(owner[keep] + leaves)
        rows.append(shape.block_rows)
        spans.append((leaves, leaves + shape.block_count))
        leaves += shape.block_count
    return np.vstack(lows), np.vstack(highs), np.concatenate(owners), np.concatenate(rows), spans


def _touch_matrix(queries: Sequence[Query], low: np.ndarray, high: np.ndarray, owner: np.ndarray,
                  count: int) -> np.ndarray:
    """Per query and block: whether the query reads the block (some box of each meets)."""
    out = np.zeros((len(queries), count), dtype=bool)
    for k, q in enumerate(queries):
        out[k, owner[touching(low, high, q.boxes)]] = True
    return out
