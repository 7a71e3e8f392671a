"""Estimating PAW's δ from the history alone (§IV-E).

Split the history in time into an older and a newer half and find the smallest δ' for which
the halves are δ'-similar (Definition 2): a perfect matching between them in which every
pair is within δ' — a bottleneck matching, found by binary search over the pair distances.

>>> import numpy as np
>>> from skipstone.layout.schema import LayoutData
>>> from skipstone.layout.queries import Query
>>> data = LayoutData.from_columns({"x": np.arange(101.0)})
>>> history = [Query.from_ranges(data.schema, {"x": (10, 20)}), Query.from_ranges(data.schema, {"x": (50, 60)}),
...            Query.from_ranges(data.schema, {"x": (52, 61)}), Query.from_ranges(data.schema, {"x": (11, 20)})]
>>> round(estimate_delta(data, history), 3)
0.02
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.workloads import query_distance


def estimate_delta(data: LayoutData, history: Sequence[Query]) -> float:
    """δ' as a fraction of the domain (the unit `build_paw_tree` takes), history in time order."""
    half = len(history) // 2
    if half == 0:
        raise ValueError("estimating delta needs at least two historical queries")
    older, newer = history[:half], history[half : 2 * half]
    distance = np.array([[query_distance(data, a, b) for b in older] for a in newer])
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
