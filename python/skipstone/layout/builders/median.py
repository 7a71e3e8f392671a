"""The cut that halves a set of values, robust to duplicates (Amoeba §3.3)."""

from __future__ import annotations

import numpy as np


def median_cut(values: np.ndarray) -> float | None:
    """A cut c with some values <= c and some > c, sending as close to half as possible left;
    None when all values are equal and no cut can separate them.

    >>> median_cut(np.array([1, 1, 1, 2, 2, 2, 3, 4, 5, 6, 7, 8.0]))
    2.0
    >>> median_cut(np.array([7.0, 7.0])) is None
    True
    """
    n = len(values)
    if n < 2:
        return None
    k = (n - 1) // 2
    middle = float(np.partition(values, k)[k])
    candidates = [middle]
    below = values[values < middle]
    if len(below):
        candidates.append(float(below.max()))
    best, best_gap = None, None
    for cut in candidates:
        left = int(np.count_nonzero(values <= cut))
        if 0 < left < n:
            gap = abs(left - n / 2)
            if best_gap is None or gap < best_gap:
                best, best_gap = cut, gap
    return best


def sample_scale(sample_rows: int, total_rows: float | None, what: str = "total_rows") -> float:
    """How many table rows one sample row stands for."""
    if sample_rows <= 0:
        raise ValueError("the data sample is empty")
    if total_rows is None:
        return 1.0
    if total_rows < sample_rows:
        raise ValueError(f"{what}={total_rows} is smaller than the sample ({sample_rows} rows)")
    return float(total_rows) / sample_rows


def check_block_rows(block_rows: float) -> None:
    if not block_rows or block_rows <= 0:
        raise ValueError(f"block_rows must be positive, got {block_rows!r}")
