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
    if len(values) < 2:
        return None
    cuts, cuttable = median_cuts(np.asarray(values).reshape(-1, 1))
    return float(cuts[0]) if cuttable[0] else None


def median_cuts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``median_cut`` of every column of `keys` (rows x columns) at once: per column the cut and
    whether it separates any rows. The cut is the middle value, or the largest value below it
    when that sends closer to half the rows left (a run of duplicates straddling the middle)."""
    n = len(keys)
    middle = np.partition(keys, (n - 1) // 2, axis=0)[(n - 1) // 2]
    below = np.where(keys < middle, keys, -np.inf).max(axis=0)
    left_middle = (keys <= middle).sum(axis=0)
    left_below = (keys <= below).sum(axis=0)
    use_below = (left_below > 0) & (np.abs(left_below - n / 2) < np.abs(left_middle - n / 2))
    use_below |= left_middle == n                                  # the middle is the maximum
    cuts = np.where(use_below, below, middle)
    left = np.where(use_below, left_below, left_middle)
    return cuts, (left > 0) & (left < n)

def sample_scale(sample_rows: int, total_rows: float | None, what: str = "total_rows") -> float:
    """How many table rows one sample row stands for."""
    if sample_rows <= 0:
        raise ValueError("the data sample is empty")
    if total_rows is None:
        return 1.0
    if total_rows < sample_rows:
        raise ValueError(f"{what}={total_rows} is smaller than the sample ({sample_rows} rows)")
    return float(total_rows) / sample_rows


def too_small_to_cut(sample_rows: int, scale: float, block_rows: float) -> bool:
    """Whether a node of `sample_rows` sample rows holds fewer than two blocks' table rows:
    cutting it would leave a block smaller than asked for (the k-d tree's and our Amoeba's rule)."""
    return sample_rows * scale < 2 * block_rows


def check_block_rows(block_rows: float) -> None:
    if not block_rows or block_rows <= 0:
        raise ValueError(f"block_rows must be positive, got {block_rows!r}")
