"""Estimating PAW's δ from the history alone (§IV-E).

Split the history in time into an older and a newer half and find the smallest δ' for which
the halves are δ'-similar (Definition 2): a perfect matching between them in which every
pair is within δ' — a bottleneck matching, found by binary search over the pair distances.

>>> import numpy as np
>>> from skipstone.layout.schema import LayoutData
>>> from skipstone.layout.queries import Query
>>> data = LayoutData.from_columns({"x": np.arange(101.0), "y": np.arange(101.0)})
>>> x = lambda lo, hi: Query.from_ranges(data.schema, {"x": (lo, hi)})
>>> y = lambda lo, hi: Query.from_ranges(data.schema, {"y": (lo, hi)})
>>> history = [x(10, 20), x(50, 60), x(52, 61), x(11, 20)]
>>> round(estimate_delta(data, history), 3)
0.02

On a history that mixes templates, the halves hold different numbers of each, so a matching
of the whole history pairs queries of different templates: δ' spans most of a domain (all of
it on TPC-H's templates). Each template's own halves give its own δ, per column:

>>> mixed = [x(10, 20), x(50, 60), y(30, 40), x(52, 61), y(70, 80), y(33, 40), x(11, 20), y(74, 81)]
>>> round(estimate_delta(data, mixed), 3)               # some x query must match a y query
0.7
>>> template_deltas(data, mixed).round(3).tolist()      # x: 2 of 100 as above; y: 4 of 100
[2.0, 4.0]
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData


def estimate_delta(data: LayoutData, history: Sequence[Query]) -> float:
    """δ' of the whole history as a fraction of the domain (the unit `build_paw_tree` takes),
    history in time order: PAW §IV-E as written, right for a history of one template.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import estimate_delta
    >>> older, newer = ({"column": "a", "op": "<", "value": v} for v in (1000, 1100))
    >>> round(estimate_delta(data, [Query.from_json(older, data.schema), Query.from_json(newer, data.schema)]), 4)
    0.0125
    """
    half = len(history) // 2
    if half == 0:
        raise ValueError("estimating delta needs at least two historical queries")
    low, length = _domain(data)
    return _bottleneck(history[:half], history[half : 2 * half], low, length)


def template_deltas(data: LayoutData, history: Sequence[Query]) -> np.ndarray:
    """δ per column, in the columns' own units (the array `build_paw_tree` takes): §IV-E run
    on each template's queries alone, a template being the set of columns a query bounds.
    A column takes the largest δ of the templates that bound it; a template seen fewer than
    twice has no halves to compare and takes the largest δ (as a fraction) of the others;
    columns no query bounds get 0 (extending an unbounded side changes nothing)."""
    low, length = _domain(data)
    templates: dict[tuple[int, ...], list[Query]] = {}
    for q in history:
        templates.setdefault(_bounded_columns(q), []).append(q)
    fractions = {columns: _bottleneck(qs[: len(qs) // 2], qs[len(qs) // 2 : 2 * (len(qs) // 2)], low, length)
                 for columns, qs in templates.items() if len(qs) >= 2}
    fallback = max(fractions.values(), default=0.0)
    delta = np.zeros(data.schema.width)
    for columns in templates:
        index = list(columns)
        delta[index] = np.maximum(delta[index], fractions.get(columns, fallback) * length[index])
    return delta


def _domain(data: LayoutData) -> tuple[np.ndarray, np.ndarray]:
    finite = np.where(np.isfinite(data.values), data.values, np.nan)
    low, high = np.nanmin(finite, axis=0), np.nanmax(finite, axis=0)
    return low, np.maximum(high - low, 1e-12)


def _bounded_columns(q: Query) -> tuple[int, ...]:
    low, high = q.bounding_box()
    return tuple(np.flatnonzero(np.isfinite(low) | np.isfinite(high)).tolist())


def _distance(a: Query, b: Query, low: np.ndarray, length: np.ndarray) -> float:
    high = low + length
    la, ha = (np.clip(v, low, high) for v in a.bounding_box())
    lb, hb = (np.clip(v, low, high) for v in b.bounding_box())
    return float(np.max(np.maximum(np.abs(la - lb), np.abs(ha - hb)) / length))


def _bottleneck(older: Sequence[Query], newer: Sequence[Query], low: np.ndarray, length: np.ndarray) -> float:
    """The smallest δ' admitting a perfect matching between two equally long workloads."""
    distance = np.array([[_distance(a, b, low, length) for b in older] for a in newer])
    candidates = np.unique(distance)
    lo, hi = 0, len(candidates) - 1
    while lo < hi:  # the smallest threshold that still admits a perfect matching
        mid = (lo + hi) // 2
        if _perfect_matching(distance <= candidates[mid]):
            hi = mid
        else:
            lo = mid + 1
    return float(candidates[lo])


def _perfect_matching(allowed: np.ndarray) -> bool:
    """Kuhn's augmenting paths on a square boolean adjacency matrix."""
    n = allowed.shape[0]
    match_of_right = [-1] * allowed.shape[1]

    def augment(left: int, seen: list[bool]) -> bool:
        for right in np.flatnonzero(allowed[left]):
            if not seen[right]:
                seen[right] = True
                if match_of_right[right] < 0 or augment(match_of_right[right], seen):
                    match_of_right[right] = left
                    return True
        return False

    return all(augment(left, [False] * allowed.shape[1]) for left in range(n))
