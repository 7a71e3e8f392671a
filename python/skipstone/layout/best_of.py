"""BestOf: ask several layout policies and keep the change that pays the most.

Amoeba's local rewrites are cheap and converge slowly; a PAW rebuild rewrites everything and
fits a recurring workload at once. Neither is right for every workload, and each already says
what its change would save (``benefit``) and cost (``cost``) over its window. ``BestOf`` asks
every policy and keeps the change with the largest ``benefit - cost``, or none when none
proposes one: each policy's own gate (benefit > cost) still decides whether anything is
rewritten. Compare like with like: give the policies the same window and cost model.

>>> import numpy as np
>>> from skipstone.layout import AmoebaAdaptive, BestOf, LayoutData, PawRebuild, Query, RowsRead, build_kd_tree
>>> rng = np.random.default_rng(0)
>>> data = LayoutData.from_columns({"x": rng.random(8000), "y": rng.random(8000)})
>>> tree = build_kd_tree(data, block_rows=500, columns=["y"])          # cut on y only
>>> history = [Query.from_ranges(data.schema, {"x": (lo, lo + 0.05)}) for lo in rng.uniform(0.1, 0.2, 40)]
>>> amoeba = AmoebaAdaptive(window=40, write_multiplier=4, cost_model=RowsRead())
>>> paw = PawRebuild(window=40, block_rows=500, write_multiplier=4, cost_model=RowsRead())
>>> nets = {p.name: (lambda c: c.benefit - c.cost)(p.propose(tree, history, data)) for p in (amoeba, paw)}
>>> change = BestOf((amoeba, paw)).propose(tree, history, data)
>>> winner = change.description.split(":")[0]
>>> change.benefit - change.cost == max(nets.values()) == nets[winner]
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from skipstone.layout.cost_model import TablePrices
from skipstone.layout.layout import Layout
from skipstone.layout.policies import LayoutChange, LayoutPolicy
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData


@dataclass(frozen=True)
class BestOf:
    """A ``LayoutPolicy`` proposing the change of ``policies`` with the largest benefit - cost.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import Range, RowsRead
    >>> tree = Range(columns=["b"], block_rows=1000).build(data, 1000, 8000)   # ordered by b, queried on a
    >>> from skipstone.layout import AutoColumns, BestOf, PawRebuild
    >>> both = BestOf((AutoColumns(cost_model=RowsRead(), write_multiplier=1, block_rows=1000),
    ...                PawRebuild(cost_model=RowsRead(), write_multiplier=1, block_rows=1000)))
    >>> both.propose(tree, [query] * 20, data).description.split(":")[0]
    'AutoColumns'
    """

    policies: tuple[LayoutPolicy, ...]
    name: str = "BestOf"

    def __post_init__(self) -> None:
        if not self.policies:
            raise ValueError("BestOf needs at least one policy")
        for p in self.policies:
            if not isinstance(p, LayoutPolicy):
                raise TypeError(f"BestOf: {p!r} is not a layout policy (it needs a name and "
                                "propose(tree, workload, sample))")

    def for_table(self, block_rows: float) -> BestOf:
        """Each policy that needs the table's target block size gets it."""
        return replace(self, policies=tuple(_adapted(p, "for_table", block_rows) for p in self.policies))

    def with_bytes_per_row(self, bytes_per_row: float) -> BestOf:
        """Each policy that prices bytes gets the table's bytes per row."""
        return replace(self, policies=tuple(_adapted(p, "with_bytes_per_row", bytes_per_row) for p in self.policies))

    def with_file_rows(self, rows_per_file: float) -> BestOf:
        """Each policy that counts files gets the table's file size limit in rows."""
        return replace(self, policies=tuple(_adapted(p, "with_file_rows", rows_per_file) for p in self.policies))

    def with_read_share(self, read_share: float) -> BestOf:
        """Each policy that prices bytes gets the share of a row its table's queries read."""
        return replace(self, policies=tuple(_adapted(p, "with_read_share", read_share) for p in self.policies))

    def with_prices(self, prices: TablePrices) -> BestOf:
        """Each policy that takes a table's calibrated prices gets them."""
        return replace(self, policies=tuple(_adapted(p, "with_prices", prices) for p in self.policies))

    def with_block_births(self, births: Mapping[int, int]) -> BestOf:
        """Each policy that counts regret from a block's birth (``BoundedRewrite``) gets the table's births."""
        return replace(self, policies=tuple(_adapted(p, "with_block_births", births) for p in self.policies))

    def propose(self, tree: Layout, workload: Sequence[Query], sample: LayoutData) -> LayoutChange | None:
        """The change of ``policies`` with the largest benefit - cost; None when none proposes one."""
        best: tuple[float, str, LayoutChange] | None = None
        for policy in self.policies:
            if policy.name == "AmoebaAdaptive" and not hasattr(tree, "root"):
                continue  # Amoeba adapts trees only; a curve layout is left to the others
            change = policy.propose(tree, workload, sample)
            if change is not None and (best is None or change.benefit - change.cost > best[0]):
                best = (change.benefit - change.cost, policy.name, change)
        if best is None:
            return None
        _, name, change = best
        return replace(change, description=f"{name}: {change.description}".rstrip(": "))


def _adapted(policy: Any, method: str, value: Any) -> LayoutPolicy:
    adapt = getattr(policy, method, None)
    return adapt(value) if callable(adapt) else policy
