"""PawRebuild: rebuild the whole table as PAW's layout for the logged workload.

PAW (Li, Yiu, Chan; ICDE 2022) lays data out for every future workload within δ of the
history. Here the history is the last ``window`` logged queries, δ is estimated from them as
in PAW §IV-E (unless given), and the rebuild is proposed only when what the window's queries
would no longer pay exceeds ``write_multiplier`` x (what rewriting every block costs plus the
fixed cost of a rewrite), both priced by ``cost_model`` (by default ``SparkCost``, calibrated
on Spark: bytes, a cost per file and per rewrite job; ``RowsRead`` is the paper's unit).

>>> import numpy as np
>>> from skipstone.layout import LayoutData, PawRebuild, Query, RowsRead, build_kd_tree
>>> rng = np.random.default_rng(0)
>>> data = LayoutData.from_columns({"x": rng.random(8000), "y": rng.random(8000)})
>>> tree = build_kd_tree(data, block_rows=500, columns=["y"])        # cut on y only
>>> history = [Query.from_ranges(data.schema, {"x": (lo, lo + 0.05)}) for lo in rng.uniform(0.1, 0.2, 40)]
>>> change = PawRebuild(block_rows=500, write_multiplier=4, cost_model=RowsRead()).propose(tree, history, data)
>>> change.benefit > change.cost, sorted(change.rewritten_blocks) == sorted(tree.block_ids.tolist())
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from skipstone.layout.builders.paw import PawOptions, build_paw_tree
from skipstone.layout.cost_model import (CostModel, SparkCost, TablePrices, rewrite_cost, with_table_bytes,
                                         with_table_file_rows, with_table_prices, with_table_read_share,
                                         write_multiplier_or_default)
from skipstone.layout.layout import Layout
from skipstone.layout.policies import LayoutChange
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.tree import PartitionTree, renumber
from skipstone.layout.workload_specs import estimated_delta


@dataclass(frozen=True)
class PawRebuild:
    """A ``LayoutPolicy``: PAW from the logged history, all blocks rewritten when it pays.

    ``block_rows`` None takes the table's target block size (a table calls ``for_table``);
    ``delta`` None estimates δ from the window, per template; ``alpha`` is PAW's multi-group
    threshold. ``write_multiplier`` None is the table's calibration when it has one
    (``with_prices``), else the library's.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import Range, RowsRead
    >>> tree = Range(columns=["b"], block_rows=1000).build(data, 1000, 8000)   # ordered by b, queried on a
    >>> from skipstone.layout import PawRebuild
    >>> policy = PawRebuild(cost_model=RowsRead(), write_multiplier=1, block_rows=1000)
    >>> change = policy.propose(tree, [query] * 20, data)
    >>> change.benefit > change.cost, change.tree.cost(query)
    (True, 1000.0)
    """

    window: int = 100
    write_multiplier: float | None = None
    delta: float | None = None
    alpha: float = 4.0
    block_rows: float | None = None
    cost_model: CostModel = SparkCost()
    name: str = "PawRebuild"

    def for_table(self, block_rows: float) -> PawRebuild:
        """This policy with the table's target block size, unless one was given."""
        return self if self.block_rows is not None else replace(self, block_rows=block_rows)

    def with_file_rows(self, rows_per_file: float) -> PawRebuild:
        """This policy counting the files of a block by the table's file size limit, unless its model has one."""
        return replace(self, cost_model=with_table_file_rows(self.cost_model, rows_per_file))

    def with_bytes_per_row(self, bytes_per_row: float) -> PawRebuild:
        """This policy pricing with the table's bytes per row, unless its model has one."""
        return replace(self, cost_model=with_table_bytes(self.cost_model, bytes_per_row))

    def with_read_share(self, read_share: float) -> PawRebuild:
        """This policy pricing a query's bytes at the share of each row its table's queries read
        (from the workload log), unless its model has one."""
        return replace(self, cost_model=with_table_read_share(self.cost_model, read_share))

    def with_prices(self, prices: TablePrices) -> PawRebuild:
        """This policy with the table's calibrated prices (``t.calibrate()``) where it was given none:
        its write multiplier when None, its ``SparkCost``'s file and job prices when None."""
        return replace(self, write_multiplier=self.write_multiplier if self.write_multiplier is not None
                       else prices.write_multiplier, cost_model=with_table_prices(self.cost_model, prices))

    def propose(self, tree: Layout, workload: Sequence[Query], sample: LayoutData) -> LayoutChange | None:
        """A PAW tree for the last ``window`` queries, every block rewritten, when that pays; None otherwise."""
        history = [q for q in workload[-self.window:] if not q.boxes.is_empty]
        if not history or sample.rows == 0 or tree.total_rows <= 0:
            return None
        cost = rewrite_cost(self.cost_model, tree.block_rows, write_multiplier_or_default(self.write_multiplier))
        if sum(tree.cost(q, self.cost_model) for q in history) <= cost:
            return None  # it cannot save more than the window pays today: no need to build PAW's tree
        block_rows = self.block_rows or tree.total_rows / tree.block_count
        delta = self.delta if self.delta is not None else estimated_delta(sample, history)
        total = max(tree.total_rows, float(sample.rows))
        built = build_paw_tree(sample, history, block_rows, delta, total, PawOptions(self.alpha))
        # new blocks get new ids: every old block is replaced, and its files with it
        first = int(tree.block_ids.max()) + 1
        rebuilt = PartitionTree(built.schema, renumber(built.root, first))
        benefit = sum(tree.cost(q, self.cost_model) - rebuilt.cost(q, self.cost_model) for q in history)
        if benefit <= cost:
            return None
        return LayoutChange(rebuilt, tuple(sorted(int(b) for b in tree.block_ids)), float(benefit), float(cost),
                            f"PAW over {len(history)} queries, delta={_describe(delta)}, "
                            f"{rebuilt.block_count} blocks")


def _describe(delta: float | np.ndarray) -> str:
    if np.isscalar(delta):
        return f"{float(delta):.4g} of each domain"
    return "per column " + ", ".join(f"{d:.4g}" for d in np.asarray(delta).tolist())
