"""AutoColumns: re-lay out the whole table over the columns the workload filters on, when it pays.

As Databricks' ``CLUSTER BY AUTO``: the policy picks the layout columns from the logged queries
(``auto/columns.py``: weights, candidates, each candidate tree priced on the recent queries) and
changes them later when the workload moves. A rewrite of the whole table is proposed only when
the gain per query over the horizon (how long the log's patterns last: the mean run of a
template, ``bounded/patterns.py``) outweighs the rewrite's cost, c x (every block written + the
job); and only when the chosen tree saves at least ``margin`` of what the current one costs,
so a table already cut on the right columns is left alone and the choice does not flap.

>>> import numpy as np
>>> from skipstone.layout import AutoColumns, LayoutData, Query, RowsRead, build_kd_tree
>>> data = LayoutData.from_columns({"x": np.repeat(np.arange(8.0), 100), "y": np.tile(np.arange(100.0), 8)})
>>> tree = build_kd_tree(data, block_rows=100, columns=["y"])          # 8 blocks cut on y
>>> q = Query.from_json({"column": "x", "op": "<=", "value": 0}, tree.schema)   # reads all 800 rows for 100
>>> policy = AutoColumns(block_rows=100, write_multiplier=2, cost_model=RowsRead())
>>> print(policy.propose(tree, [q] * 2, data))          # saves 700 a query; 2 x 700 < 2 x 800 to rewrite
None
>>> change = policy.propose(tree, [q] * 3, data)         # a run of 3 queries: 3 x 700 > 1600
>>> change.columns, change.gain_per_query, change.cost, change.horizon_queries
(('x',), 700.0, 1600.0, 3.0)
>>> print(policy.propose(change.tree, [q] * 3, data))    # already cut on x: nothing to gain
None
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Sequence

from skipstone.layout.auto.columns import BUILDERS, ColumnChoice, choose_columns
from skipstone.layout.bounded.patterns import WorkloadPatterns, workload_patterns
from skipstone.layout.cost_model import (CostModel, SparkCost, TablePrices, with_table_bytes, with_table_file_rows,
                                         with_table_prices, with_table_read_share, write_multiplier_or_default)
from skipstone.layout.layout import Layout
from skipstone.layout.policies import LayoutChange
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData

log = logging.getLogger(__name__)

MIN_RECENT_QUERIES = 20  # the fewest queries since a new template took over that a choice is made from


@dataclass(frozen=True)
class AutoColumns:
    """A ``LayoutPolicy``: the whole table re-laid out over the columns the recent queries call
    for, when the gain over the workload's horizon outweighs the rewrite.

    ``window``: the recent queries that weigh columns and price trees; ``max_columns``: at most
    this many layout columns; ``hot_share``: the share of the window a template needs to be a
    candidate on its own; ``builders``: the spec kinds tried for each candidate (``KdTree``,
    ``Amoeba``); ``margin``: the least share of the current cost the new tree must save (no
    flapping); ``block_rows`` None takes the table's (``for_table``) or the tree's mean block.
    ``force`` proposes the best choice even when the horizon would not pay it back (what
    ``OPTIMIZE t LAYOUT AUTO`` asks), but never one under the margin. ``write_multiplier`` None is
    the table's calibration when it has one (``t.calibrate()``, ``with_prices``), else the library's.
    ``by_stats`` prices trees as Spark skips their files, by each block's min/max estimated from
    the sample (``stats_pricing.py``); False prices them by their cuts alone, for comparison.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import Range, RowsRead
    >>> tree = Range(columns=["b"], block_rows=1000).build(data, 1000, 8000)   # ordered by b, queried on a
    >>> from skipstone.layout import AutoColumns
    >>> policy = AutoColumns(cost_model=RowsRead(), write_multiplier=1, block_rows=1000)
    >>> change = policy.propose(tree, [query] * 20, data)
    >>> change.description.split(",")[0]
    'layout columns (a) by KdTree'
    """

    window: int = 100
    write_multiplier: float | None = None
    cost_model: CostModel = SparkCost()
    max_columns: int = 3
    hot_share: float = 0.1
    builders: tuple[str, ...] = ("KdTree", "Amoeba")
    margin: float = 0.1
    block_rows: float | None = None
    force: bool = False
    by_stats: bool = True
    name: str = "AutoColumns"

    def __post_init__(self) -> None:
        for field in ("window", "max_columns", "write_multiplier"):
            if getattr(self, field) is not None and not getattr(self, field) > 0:
                raise ValueError(f"AutoColumns.{field} must be positive, got {getattr(self, field)}")
        if not 0 <= self.margin < 1:
            raise ValueError(f"AutoColumns.margin must be in [0, 1), got {self.margin}")
        unknown = [b for b in self.builders if b not in BUILDERS]
        if unknown or not self.builders:
            raise ValueError(f"AutoColumns.builders must name some of {', '.join(BUILDERS)}, got {self.builders}")

    def for_table(self, block_rows: float) -> AutoColumns:
        """This policy with the table's target block size, unless one was given."""
        return self if self.block_rows is not None else replace(self, block_rows=float(block_rows))

    def with_bytes_per_row(self, bytes_per_row: float) -> AutoColumns:
        """This policy pricing with the table's bytes per row, unless its model has one."""
        return replace(self, cost_model=with_table_bytes(self.cost_model, bytes_per_row))

    def with_file_rows(self, rows_per_file: float) -> AutoColumns:
        """This policy counting the files of a block by the table's file size limit, unless its model has one."""
        return replace(self, cost_model=with_table_file_rows(self.cost_model, rows_per_file))

    def with_read_share(self, read_share: float) -> AutoColumns:
        """This policy pricing a query's bytes at the share of each row its table's queries read
        (from the workload log), unless its model has one."""
        return replace(self, cost_model=with_table_read_share(self.cost_model, read_share))

    def with_prices(self, prices: TablePrices) -> AutoColumns:
        """This policy with the table's calibrated prices (``t.calibrate()``) where it was given none:
        its write multiplier when None, its ``SparkCost``'s file and job prices when None."""
        return replace(self, write_multiplier=self.write_multiplier if self.write_multiplier is not None
                       else prices.write_multiplier, cost_model=with_table_prices(self.cost_model, prices))

    def choose(self, tree: Layout, workload: Sequence[Query], sample: LayoutData) -> ColumnChoice | None:
        """The columns the recent queries call for and what they save, gate aside. Recent means
        the window, or less once a new template has taken over within it: the queries since
        its run began, if there are ``MIN_RECENT_QUERIES`` (on Spark, a window still holding
        the phase before kept the old phase's layout for three quarters of the next)."""
        return self._choose(tree, list(workload), workload_patterns(workload, self.window, self.hot_share), sample)

    def _choose(self, tree: Layout, queries: list[Query], patterns: WorkloadPatterns,
                sample: LayoutData) -> ColumnChoice | None:
        block_rows = self.block_rows or tree.total_rows / max(1, tree.block_count)
        return choose_columns(tree, self._recent(queries, patterns), sample, block_rows, self.cost_model,
                              write_multiplier_or_default(self.write_multiplier),
                              self.window, self.max_columns, self.hot_share, self.builders, self.margin,
                              self.by_stats)

    @staticmethod
    def _recent(queries: list[Query], patterns: WorkloadPatterns) -> Sequence[Query]:
        starts = [p.start for p in patterns.patterns if len(p.templates) == 1]
        newest = max(starts, default=0)
        if newest > patterns.window_start and len(queries) - newest >= MIN_RECENT_QUERIES:
            return queries[newest:]
        return queries

    def propose(self, tree: Layout, workload: Sequence[Query], sample: LayoutData) -> LayoutChange | None:
        """The table re-laid out over the columns the window's queries call for, when the gain over
        the horizon outweighs the rewrite (or ``force``); None otherwise."""
        queries = list(workload)
        # once: from scratch it reads the whole log; a LoggedWorkload (a table's) brings its runs along
        patterns = workload_patterns(workload, self.window, self.hot_share)
        choice = self._choose(tree, queries, patterns, sample)
        if choice is None:
            log.info("%s declines: no layout over the queried columns reads less than the current one", self.name)
            return None
        horizon = patterns.horizon
        predicted = choice.gain_per_query * horizon
        if predicted <= choice.rewrite_cost and not self.force:
            log.info("%s declines: (%s) by %s would save %.4g over the next %.0f queries, under the rewrite's "
                     "cost %.4g", self.name, ", ".join(choice.columns), choice.builder, predicted, horizon,
                     choice.rewrite_cost)
            return None
        shown = ", ".join(choice.columns)
        description = (f"layout columns ({shown}) by {choice.builder}, chosen from {choice.queries} queries: "
                       f"saves {choice.gain_per_query:.4g} a query ({choice.cost_per_query:.4g} instead of "
                       f"{choice.current_per_query:.4g}), break-even after {choice.break_even_queries:.1f} queries; "
                       f"patterns last {horizon:.0f} queries: predicted benefit {predicted:.4g} "
                       f"{'>' if predicted > choice.rewrite_cost else '<='} rewrite cost {choice.rewrite_cost:.4g}")
        return LayoutChange(choice.tree, tuple(sorted(int(b) for b in tree.block_ids)), predicted, choice.rewrite_cost,
                            description, break_even_queries=choice.break_even_queries, horizon_queries=horizon,
                            predicted_benefit=predicted, columns=choice.columns, builder=choice.builder,
                            gain_per_query=choice.gain_per_query, spec=choice.spec.to_json())
