"""Sets of disjoint hyper-rectangles over encoded attributes.

Every interval is half-open, (low, high]: a row x lies in a box when low < x <= high in every
dimension. That matches a partitioning cut "x <= cut goes left": the left side of a box split
at c is (low, min(high, c)] and the right side is (max(low, c), high], with no need to know the
next representable value. A query, a tree node's region and a block's descriptor are all
BoxSets.

>>> a = BoxSet.single([0.0, 0.0], [10.0, 10.0])
>>> b = BoxSet.single([5.0, -1.0], [20.0, 3.0])
>>> a.union(b).count, a.union(b).volume_check()
(3, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np


@dataclass(frozen=True, eq=False)
class BoxSet:
    """Disjoint boxes; `low` and `high` have shape (boxes, dimensions).

    >>> from skipstone.layout import BoxSet
    >>> box = BoxSet.single([0, 0], [1, 1])
    >>> box.count, box.width, box.complement().count, box.intersects(BoxSet.single([0.5, 0.5], [2, 2]))
    (1, 2, 4, True)
    """

    low: np.ndarray
    high: np.ndarray

    @staticmethod
    def universe(width: int) -> BoxSet:
        """One box covering all of ``width`` dimensions."""
        return BoxSet(np.full((1, width), -np.inf), np.full((1, width), np.inf))

    @staticmethod
    def empty(width: int) -> BoxSet:
        """No box, in ``width`` dimensions."""
        return BoxSet(np.empty((0, width)), np.empty((0, width)))

    @staticmethod
    def single(low: Sequence[float], high: Sequence[float]) -> BoxSet:
        """The box from ``low`` to ``high`` (empty when it has no volume)."""
        return BoxSet(np.asarray(low, dtype=np.float64)[None, :], np.asarray(high, dtype=np.float64)[None, :]).nonempty()

    @property
    def width(self) -> int:
        """The number of dimensions."""
        return int(self.low.shape[1])

    @property
    def count(self) -> int:
        """The number of boxes."""
        return int(self.low.shape[0])

    @property
    def is_empty(self) -> bool:
        """Whether there is no box."""
        return self.count == 0

    def nonempty(self) -> BoxSet:
        """These boxes without the ones that have no volume."""
        keep = np.all(self.low < self.high, axis=1)
        return self if keep.all() else BoxSet(self.low[keep], self.high[keep])

    def restrict(self, dimension: int, low: float, high: float) -> BoxSet:
        """These boxes cut down to low < x[dimension] <= high."""
        lo, hi = self.low.copy(), self.high.copy()
        lo[:, dimension] = np.maximum(lo[:, dimension], low)
        hi[:, dimension] = np.minimum(hi[:, dimension], high)
        return BoxSet(lo, hi).nonempty()

    def intersect(self, other: BoxSet) -> BoxSet:
        """Pairwise intersections; disjoint inputs give disjoint outputs."""
        lo = np.maximum(self.low[:, None, :], other.low[None, :, :]).reshape(-1, self.width)
        hi = np.minimum(self.high[:, None, :], other.high[None, :, :]).reshape(-1, self.width)
        return BoxSet(lo, hi).nonempty()

    def subtract(self, other: BoxSet) -> BoxSet:
        """The part of these boxes outside every box of `other`, as disjoint boxes."""
        result = self
        for k in range(other.count):
            result = result._subtract_one(other.low[k], other.high[k])
            if result.is_empty:
                break
        return result

    def union(self, other: BoxSet) -> BoxSet:
        """A ∪ B as A plus (B − A), which keeps the boxes disjoint (PAW §III-B)."""
        extra = other.subtract(self)
        return BoxSet(np.vstack([self.low, extra.low]), np.vstack([self.high, extra.high]))

    def complement(self) -> BoxSet:
        """The space outside these boxes, as disjoint boxes."""
        return BoxSet.universe(self.width).subtract(self)

    def intersects(self, other: BoxSet) -> bool:
        """Whether some box of ``other`` overlaps one of these."""
        return not self.intersect(other).is_empty

    def contains_points(self, points: np.ndarray) -> np.ndarray:
        """A boolean per row of `points` (shape (n, dimensions)): inside some box."""
        inside = np.zeros(len(points), dtype=bool)
        for k in range(self.count):
            inside |= np.all((points > self.low[k]) & (points <= self.high[k]), axis=1)
        return inside

    def bounding_box(self) -> BoxSet:
        """The one box around all of these (empty if there are none)."""
        if self.is_empty:
            return self
        return BoxSet(self.low.min(axis=0)[None, :], self.high.max(axis=0)[None, :])

    def volume_check(self) -> bool:
        """True when the boxes are pairwise disjoint (used by tests and assertions)."""
        for k in range(self.count):
            rest = BoxSet(np.delete(self.low, k, axis=0), np.delete(self.high, k, axis=0))
            if rest.intersects(BoxSet(self.low[k : k + 1], self.high[k : k + 1])):
                return False
        return True

    def _subtract_one(self, low: np.ndarray, high: np.ndarray) -> BoxSet:
        overlap = np.all((self.low < high) & (self.high > low), axis=1)
        if not overlap.any():
            return self
        pieces_low = [self.low[~overlap]]
        pieces_high = [self.high[~overlap]]
        for lo, hi in zip(self.low[overlap], self.high[overlap]):
            lo, hi = lo.copy(), hi.copy()
            # peel off the slab below and above the hole in each dimension, then shrink to it
            for d in range(self.width):
                if lo[d] < low[d]:
                    below_hi = hi.copy()
                    below_hi[d] = low[d]
                    pieces_low.append(lo.copy()[None, :])
                    pieces_high.append(below_hi[None, :])
                    lo[d] = low[d]
                if hi[d] > high[d]:
                    above_lo = lo.copy()
                    above_lo[d] = high[d]
                    pieces_low.append(above_lo[None, :])
                    pieces_high.append(hi.copy()[None, :])
                    hi[d] = high[d]
        return BoxSet(np.vstack(pieces_low), np.vstack(pieces_high)).nonempty()


def touching(low: np.ndarray, high: np.ndarray, query: BoxSet) -> np.ndarray:
    """For R descriptor boxes (arrays of shape (R, d)), whether each intersects the query."""
    if query.is_empty or len(low) == 0:
        return np.zeros(len(low), dtype=bool)
    hit = np.zeros(len(low), dtype=bool)
    for k in range(query.count):
        hit |= np.all((low < query.high[k]) & (high > query.low[k]), axis=1)
    return hit


def block_bounding_boxes(values: np.ndarray, positions: np.ndarray, blocks: int) -> tuple[np.ndarray, np.ndarray]:
    """Per block, the smallest box holding its rows (`positions[i]` is row i's block), as
    half-open (low, high] arrays of shape (blocks, columns); an empty block gets an empty box.
    This is what per-file min/max statistics let a reader skip by."""
    width = values.shape[1]
    low = np.full((blocks, width), np.inf)
    high = np.full((blocks, width), -np.inf)
    order = np.argsort(positions, kind="stable")
    present, starts = np.unique(positions[order], return_index=True)
    if len(present):
        ordered = values[order]
        low[present] = np.minimum.reduceat(ordered, starts, axis=0)
        high[present] = np.maximum.reduceat(ordered, starts, axis=0)
    # half-open (low, high]: step just below the smallest value
    return np.nextafter(low, -np.inf), high
