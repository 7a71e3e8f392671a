"""What a cut is worth to queries when files are skipped by their min/max of every column.

Amoeba's allocation counts cuts per column: a cut on o_orderdate counts for o_orderdate alone.
But Skipstone keeps min/max of every column per file, so that cut also separates l_shipdate,
l_commitdate, l_receiptdate and the status flags that follow them, and the same count says
nothing of how far a column is already cut on the path to a node. `SkippingGain` measures both
on the sample: the rows a point query on a column reads from a node are the node's rows times
the share of the table whose value lies inside the node's min/max of that column (the column's
*width* at the node). A cut's gain is how much it lowers that, summed over the columns (each
weighted by how likely a query is to filter on it; equal by default). Widths shrink as a column
is cut along a path, so gains diminish and the cuts spread over columns as Amoeba's do, while a
cut that separates several correlated columns at once is worth as much as it really skips.

>>> import numpy as np
>>> from skipstone.layout.schema import LayoutData
>>> rng = np.random.default_rng(0)
>>> x = rng.random(2_000)
>>> data = LayoutData.from_columns({"x": x, "y": x + rng.normal(0, 0.01, 2_000), "z": rng.random(2_000)})
>>> gain = SkippingGain(data.values, [0, 1, 2])
>>> gain.ranked(np.arange(2_000), [0, 1, 2], node=1)[-1]      # cutting z separates only z
2
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from skipstone.layout.builders import noise
from skipstone.layout.builders.median import median_cuts

# Gains within this fraction of the best are a tie (they are estimates from a sample), which the
# caller's preference breaks: leastAllocated keeps independent columns evenly spread.
TIE = 0.03

# Gains are estimated on at most this many of a node's sample rows: enough to tell a correlated
# column from an independent one, and cheap at the root; below MIN_ROWS they are not estimated.
GAIN_ROWS = 4096
MIN_ROWS = 16
# Ranks (the share of the sample below each value) are computed for at most this many rows.
RANKED_ROWS = 200_000


class SkippingGain:
    """Point-query read savings of median cuts, measured on `values` (the builder's sample).

    Widths are read off ranks: each value is stored as the share of the sample below it and
    the share at or below it, so a node's width in a column is its largest upper rank minus
    its smallest lower rank, with no search per node. Which rows are measured is decided by
    ``seed`` (``noise``), as ``io.skipstone.layout.builders.SkippingGain`` decides it."""

    def __init__(self, values: np.ndarray, columns: Sequence[int], weights: np.ndarray | None = None,
                 seed: int = 0) -> None:
        self.values = values
        self.columns = list(columns)
        self.weights = np.ones(len(self.columns)) if weights is None else np.asarray(weights, dtype=np.float64)
        self.seed = seed
        # Ranks are kept for at most RANKED_ROWS of the sample; `position` maps a sample row to
        # its place among them (-1: not ranked).
        everything = np.arange(len(values))
        ranked = everything if len(values) <= RANKED_ROWS else \
            np.sort(noise.choose(everything, RANKED_ROWS, seed, noise.RANKED_ROWS, 0))
        self.position = np.full(len(values), -1, dtype=np.int64)
        self.position[ranked] = np.arange(len(ranked))
        self.below, self.upto = _ranks(values[np.ix_(ranked, self.columns)])

    def ranked(self, rows: np.ndarray, cut_columns: Sequence[int], node: int) -> list[int]:
        """`cut_columns` by the gain of a median cut on each at the node holding sample `rows`
        (`node` names it, for the choice of rows to measure), best first; a column that cannot
        be cut there goes last. Gains within `TIE` of the best keep the order given, so the
        caller's preference breaks near ties."""
        rows = rows[self.position[rows] >= 0]
        if len(rows) < MIN_ROWS:
            return list(cut_columns)          # too few rows to measure: the caller's order
        if len(rows) > GAIN_ROWS:
            rows = noise.choose(rows, GAIN_ROWS, self.seed, noise.GAIN_ROWS, node)
        gains = self.gains(rows, list(cut_columns))
        best = gains.max()
        near = [i for i, g in enumerate(gains) if np.isfinite(g) and g >= best - TIE * abs(best)]
        rest = sorted((i for i in range(len(cut_columns)) if i not in near), key=lambda i: -gains[i])
        return [cut_columns[i] for i in near + rest]

    def gains(self, rows: np.ndarray, cut_columns: list[int]) -> np.ndarray:
        """Per cut column, the point-query rows a median cut on it saves (-inf: cannot cut).
        All candidates at once: a Python loop per candidate costs more than the arithmetic."""
        below, upto = self.below[self.position[rows]], self.upto[self.position[rows]]  # rows x measured columns
        keys = self.values[np.ix_(rows, cut_columns)]              # rows x candidates
        cuts, cuttable = median_cuts(keys)
        left = keys <= cuts
        saved = self._read(below, upto, np.ones((len(rows), 1), dtype=bool))[0]
        for mask in (left, ~left):
            saved = saved - mask.mean(axis=0) * self._read(below, upto, mask)
        return np.where(cuttable, saved, -np.inf)

    def _read(self, below: np.ndarray, upto: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Per mask (a column of `masks`), the weighted sum over columns of the width of the
        masked rows: the share of the table a point query reads from them."""
        inside = masks.T[:, :, None]                               # masks x rows x 1
        low = np.where(inside, below[None, :, :], np.float32(np.inf)).min(axis=1)
        high = np.where(inside, upto[None, :, :], np.float32(-np.inf)).max(axis=1)
        return np.maximum(high - low, 0.0) @ self.weights


def _ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per value, the share of its column that is smaller, and that is smaller or equal."""
    n = len(values)
    below = np.empty(values.shape, dtype=np.float32)
    upto = np.empty(values.shape, dtype=np.float32)
    for k in range(values.shape[1]):
        order = np.argsort(values[:, k], kind="stable")
        ordered = values[order, k]
        starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])   # first index of each run
        ends = np.r_[starts[1:], n]                                         # one past its last
        run = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, n]))
        below[order, k] = starts[run] / n
        upto[order, k] = ends[run] / n
    return below, upto
