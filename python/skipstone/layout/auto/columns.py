"""Layout columns chosen by the workload: which columns should the table's tree cut on?

The columns a tree cuts on matter more than how it cuts them: Amoeba's upfront tree over every
column read 29 % of the bytes where the same tree over the workload's columns read 16 %. So,
from the logged queries (oldest first) and the table's sample:

1. **Weights.** Each recent query (the last ``window``) that bounds a column adds to the
   column's weight how much the bound rules out: 1 - its selectivity on that column alone,
   measured on the sample. A column filtered often and narrowly weighs most.
2. **Candidates.** The top 1, 2, ... ``max_columns`` columns by weight; each frequent template
   (the set of columns a query bounds, at least ``hot_share`` of the window) and the union of
   each two of them (trimmed to the heaviest ``max_columns``).
3. **Prices.** Each candidate is built on the sample with the first of ``builders`` (a k-d
   tree over those columns, at the table's block size), the ``REFINED_SETS`` cheapest with the
   others too (Amoeba) unless they are far from worth choosing (a build is kept for the next
   call, ``candidate_trees.py``), and priced
   on the recent queries with
   the cost model, against what the current tree costs them. The cheapest wins. Every tree,
   the current one too, is priced as Spark will skip its files: by its blocks' min/max on
   every column, from the sample (``stats_pricing.py``), not by its cuts alone, which cannot
   see that a tree cut on one column clusters the columns that follow it.

``choose_columns`` returns the winner with its gain per query and the whole-table rewrite's
cost (``rewrite_cost``: c x every block written plus the job), or None when no recent query
bounds a column or the winner saves under ``margin`` of what the current tree costs: a tree
already cut on the right columns is left alone, so the choice does not flap.

>>> import numpy as np
>>> from skipstone.layout import LayoutData, Query, RowsRead, build_kd_tree
>>> rng = np.random.default_rng(0)
>>> data = LayoutData.from_columns({c: rng.random(4000) for c in "abcd"})
>>> tree = build_kd_tree(data, block_rows=250, columns=["c", "d"])       # cut on the wrong columns
>>> queries = [Query.from_ranges(data.schema, {"a": (lo, lo + 0.1), "b": (lo, lo + 0.2)})
...            for lo in rng.uniform(0, 0.7, 30)]
>>> choice = choose_columns(tree, queries, data, block_rows=250, cost_model=RowsRead(), write_multiplier=4)
>>> choice.columns, choice.builder, choice.gain_per_query > 0.8 * choice.current_per_query
(('a', 'b'), 'Amoeba', True)
>>> print(choose_columns(choice.tree, queries, data, block_rows=250, cost_model=RowsRead(), write_multiplier=4))
None
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from skipstone.layout.auto.candidate_trees import built, priced, sample_digest
from skipstone.layout.bounded.patterns import Template, template_of
from skipstone.layout.cost_model import CostModel, rewrite_cost
from skipstone.layout.layout import Layout
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.specs import Amoeba, KdTree, SizedSpec
from skipstone.layout.stats_pricing import StatsPricing
from skipstone.layout.tree import PartitionTree, renumber

# The builders a candidate is tried with, by the spec name a table records.
BUILDERS: dict[str, type[SizedSpec]] = {"KdTree": KdTree, "Amoeba": Amoeba}
REFINED_SETS = 1  # the column sets the first builder priced cheapest, which the other builders build too
# ... when their price is under this many times what the choice must cost to be taken: a set
# whose k-d tree costs half as much again as that is not worth another build
REFINE_WITHIN = 1.5


@dataclass(frozen=True, eq=False)
class ColumnChoice:
    """The columns the workload calls for, the tree built over them and what it saves.

    ``tree`` is built on the sample for the table's rows, its blocks numbered after the current
    tree's (a whole-table rewrite replaces every block); ``spec`` is the layout spec that built
    it; costs are the cost model's, per recent query; ``rewrite_cost`` is c x (every block
    written + the job); ``break_even_queries`` how many queries at ``gain_per_query`` pay it.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import Range, RowsRead
    >>> tree = Range(columns=["b"], block_rows=1000).build(data, 1000, 8000)   # ordered by b, queried on a
    >>> from skipstone.layout import choose_columns
    >>> choice = choose_columns(tree, [query] * 20, data, 1000, RowsRead(), 1.0)
    >>> choice.columns, choice.builder, choice.gain_per_query
    (('a',), 'KdTree', 7000.0)
    """

    columns: tuple[str, ...]
    builder: str
    spec: SizedSpec
    tree: PartitionTree
    current_per_query: float
    cost_per_query: float
    rewrite_cost: float
    queries: int
    weights: dict[str, float]

    @property
    def gain_per_query(self) -> float:
        """What each recent query would save under ``tree``: current cost - new cost."""
        return self.current_per_query - self.cost_per_query

    @property
    def break_even_queries(self) -> float:
        """How many queries at ``gain_per_query`` pay ``rewrite_cost`` (inf when none saves)."""
        return self.rewrite_cost / self.gain_per_query if self.gain_per_query > 0 else math.inf


def column_weights(queries: Sequence[Query], sample: LayoutData) -> np.ndarray:
    """Per layout column: the sum over ``queries`` of 1 - the selectivity of their bound on it
    alone (the share of the sample's rows it keeps); a column no query bounds weighs 0.

    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"x": np.arange(100.0), "y": np.arange(100.0)})
    >>> q = Query.from_ranges(data.schema, {"x": (0, 9)})          # keeps 10 % of the rows on x
    >>> column_weights([q, q], data).tolist()
    [1.8, 0.0]
    """
    weights = np.zeros(sample.schema.width)
    if sample.rows == 0:
        return weights
    for q in queries:
        for column in sorted(template_of(q)):
            values = sample.values[:, column][:, None]
            kept = ((values > q.boxes.low[:, column][None, :]) & (values <= q.boxes.high[:, column][None, :])).any(axis=1)
            weights[column] += 1.0 - kept.mean()
    return weights


def candidate_columns(queries: Sequence[Query], weights: np.ndarray, max_columns: int,
                      hot_share: float) -> list[tuple[int, ...]]:
    """The column sets worth building a tree over, each ordered heaviest first, without repeats:
    the top-k by weight, each frequent template, and each two frequent templates together.

    >>> from skipstone.layout import Column, ColumnKind, Query, Schema
    >>> schema = Schema(tuple(Column(c, ColumnKind.INTEGER) for c in "abc"))
    >>> qs = [Query.from_ranges(schema, {"a": (0, 5)})] * 3 + [Query.from_ranges(schema, {"c": (0, 5)})] * 2
    >>> candidate_columns(qs, np.array([3.0, 0.0, 2.0]), max_columns=2, hot_share=0.3)
    [(0,), (0, 2), (2,)]
    """
    by_weight = [int(c) for c in np.argsort(-weights, kind="stable") if weights[c] > 0]
    rank = {c: k for k, c in enumerate(by_weight)}

    def ordered(columns: frozenset[int]) -> tuple[int, ...]:
        return tuple(sorted((c for c in columns if c in rank), key=rank.__getitem__)[:max_columns])

    counts: dict[Template, int] = {}
    for q in queries:
        template = template_of(q)
        if template:
            counts[template] = counts.get(template, 0) + 1
    frequent = sorted((t for t, n in counts.items() if n >= hot_share * len(queries)), key=lambda t: (-counts[t], sorted(t)))
    sets = [frozenset(by_weight[:k]) for k in range(1, min(max_columns, len(by_weight)) + 1)]
    sets += frequent + [a | b for i, a in enumerate(frequent) for b in frequent[i + 1:]]
    out: list[tuple[int, ...]] = []
    for s in sets:
        columns = ordered(s)
        if columns and columns not in out:
            out.append(columns)
    return out


def choose_columns(tree: Layout, workload: Sequence[Query], sample: LayoutData, block_rows: float,
                   cost_model: CostModel, write_multiplier: float, window: int = 100, max_columns: int = 3,
                   hot_share: float = 0.1, builders: Sequence[str] = ("KdTree", "Amoeba"),
                   margin: float = 0.1, by_stats: bool = True) -> ColumnChoice | None:
    """The cheapest tree over the columns the recent queries filter on, if it saves them at least
    ``margin`` of what the current ``tree`` costs them; None otherwise, or when no recent query
    bounds a column. See the module's doc for how candidates are found and priced;
    ``by_stats`` False prices every tree by its cuts alone (what the policy did before).

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import Range, RowsRead
    >>> tree = Range(columns=["b"], block_rows=1000).build(data, 1000, 8000)   # ordered by b, queried on a
    >>> from skipstone.layout import choose_columns
    >>> choice = choose_columns(tree, [query] * 20, data, 1000, RowsRead(), 1.0)
    >>> choice.columns, choice.cost_per_query, choice.current_per_query
    (('a',), 1000.0, 8000.0)
    """
    unknown = [b for b in builders if b not in BUILDERS]
    if unknown:
        raise ValueError(f"choose_columns: unknown builder {', '.join(map(repr, unknown))} (one of {', '.join(BUILDERS)})")
    if sample.schema != tree.schema:
        raise ValueError("choose_columns: the sample's schema differs from the tree's")
    queries = [q for q in workload[-window:] if not q.boxes.is_empty]
    if not queries or sample.rows == 0 or tree.total_rows <= 0:
        return None
    distinct = _distinct(queries)
    weights = column_weights(queries, sample)
    current = _mean_cost(StatsPricing.of(tree, sample) if by_stats else tree, distinct, cost_model)
    first_block = int(tree.block_ids.max()) + 1
    digest = sample_digest(sample)

    def priced_candidate(columns: tuple[int, ...], builder: str) -> tuple[float, tuple[int, ...], str, SizedSpec, PartitionTree]:
        spec = BUILDERS[builder](block_rows=max(1, round(block_rows)), columns=[sample.schema.names[c] for c in columns])
        made = built(spec, sample, block_rows, tree.total_rows, digest)  # the same candidates each step of a phase
        candidate = PartitionTree(made.schema, renumber(made.root, first_block))
        # its blocks are made's, renumbered: made's prices (kept with it) are the candidate's
        return _mean_cost(priced(made, sample) if by_stats else candidate, distinct, cost_model), columns, builder, spec, candidate

    # every column set by the first builder; the cheapest few by the others too (an Amoeba build
    # scores every candidate cut at every node, a k-d build takes medians: the dearer part of a call)
    first = sorted((priced_candidate(columns, builders[0]) for columns in candidate_columns(queries, weights, max_columns,
                                                                                               hot_share)), key=lambda c: c[0])
    needed = (1 - margin) * current  # what a choice must cost at most
    refined = [priced_candidate(c[1], b) for c in first[:REFINED_SETS] if c[0] < REFINE_WITHIN * needed
               for b in builders[1:]]
    best = min(first + refined, key=lambda c: c[0], default=None)
    if best is None or not current - best[0] > margin * current:  # a tree that saves nothing is never chosen
        return None
    cost, columns, builder, spec, candidate = best
    return ColumnChoice(tuple(sample.schema.names[c] for c in columns), builder, spec, candidate, current, cost,
                        rewrite_cost(cost_model, tree.block_rows, write_multiplier), len(queries),
                        {sample.schema.names[c]: float(weights[c]) for c in np.flatnonzero(weights)})


def _distinct(queries: Sequence[Query]) -> list[tuple[Query, int]]:
    """Each distinct query once, with how often it ran: a tree is priced once per distinct query."""
    by_key: dict[tuple[bytes, bytes], tuple[Query, int]] = {}
    for q in queries:
        key = (q.boxes.low.tobytes(), q.boxes.high.tobytes())
        by_key[key] = (q, by_key[key][1] + 1 if key in by_key else 1)
    return list(by_key.values())


def _mean_cost(layout: Layout | StatsPricing, distinct: Sequence[tuple[Query, int]], model: CostModel) -> float:
    runs = sum(n for _, n in distinct)
    return sum(layout.cost(q, model) * n for q, n in distinct) / runs
