"""How far apart two queries are: PAW's dist□ (Definition 1), in fractions of each column's
domain (its min..max in the sample). PAW's δ estimate (``builders/paw_delta.py``) and the
simulator's δ-similar workloads both measure with it.

>>> import numpy as np
>>> from skipstone.layout.queries import Query
>>> from skipstone.layout.schema import LayoutData
>>> data = LayoutData.from_columns({"x": np.arange(101.0)})
>>> a = Query.from_ranges(data.schema, {"x": (10, 20)})
>>> b = Query.from_ranges(data.schema, {"x": (12, 21)})
>>> round(query_distance(data, a, b), 3)
0.02
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData


@dataclass(frozen=True, eq=False)
class Domain:
    """Each column's min..max over the finite values of a sample."""

    low: np.ndarray
    high: np.ndarray

    @staticmethod
    def of(data: LayoutData) -> Domain:
        finite = np.where(np.isfinite(data.values), data.values, np.nan)
        return Domain(np.nanmin(finite, axis=0), np.nanmax(finite, axis=0))

    @property
    def length(self) -> np.ndarray:
        return np.maximum(self.high - self.low, 1e-12)


def query_distance(data: LayoutData, a: Query, b: Query) -> float:
    """dist□ of Definition 1 on the queries' bounding boxes, in fractions of the domain."""
    domain = Domain.of(data)
    la, ha = _clipped_bounds(a, domain)
    lb, hb = _clipped_bounds(b, domain)
    return float(np.max(np.maximum(np.abs(la - lb), np.abs(ha - hb)) / domain.length))


def _clipped_bounds(q: Query, domain: Domain) -> tuple[np.ndarray, np.ndarray]:
    low, high = q.bounding_box()
    return np.clip(low, domain.low, domain.high), np.clip(high, domain.low, domain.high)
