"""The workload monitor: the queries of the last `horizon` time units (Amoeba §4.1).

>>> from skipstone.layout.boxes import BoxSet
>>> q = Query(BoxSet.universe(1))
>>> window = QueryWindow(horizon=10).add(0, q).add(5, q).add(12, q)
>>> window.times
(5.0, 12.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from skipstone.layout.queries import Query


@dataclass(frozen=True)
class QueryWindow:
    """Queries seen within `horizon` of the newest one; older queries are stale and dropped.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import QueryWindow
    >>> QueryWindow(horizon=10).add(1, query).add(5, query).add(20, query).times   # 1 and 5 are stale at 20
    (20.0,)
    """

    horizon: float
    entries: tuple[tuple[float, Query], ...] = ()

    def __post_init__(self) -> None:
        if self.horizon <= 0:
            raise ValueError(f"query window horizon must be positive, got {self.horizon}")

    def add(self, time: float, query: Query) -> QueryWindow:
        """The window with ``query`` seen at ``time`` added and queries older than ``horizon`` dropped."""
        if self.entries and time < self.entries[-1][0]:
            raise ValueError(f"query time {time} is before the newest query in the window ({self.entries[-1][0]})")
        kept = tuple(e for e in self.entries if e[0] > time - self.horizon)
        return QueryWindow(self.horizon, kept + ((float(time), query),))

    @property
    def queries(self) -> tuple[Query, ...]:
        """The queries in the window, oldest first."""
        return tuple(q for _, q in self.entries)

    @property
    def times(self) -> tuple[float, ...]:
        """When each query was seen, oldest first."""
        return tuple(t for t, _ in self.entries)
