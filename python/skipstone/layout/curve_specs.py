"""Layout specs for space-filling curves: ``ZOrder`` and ``Hilbert``.

Each layout column is cut into ``2**bits`` cells at sample quantiles, rows are ordered by the
curve key of their cell, and the key range is cut into blocks of equal rows. A table routes
rows in the executors with the same cut points (``io.skipstone.layout.LayoutRouting`` in the JVM).

>>> import numpy as np
>>> from skipstone.layout import Hilbert, LayoutData
>>> sample = LayoutData.from_columns({"a": np.arange(4000), "b": np.arange(4000) % 17})
>>> layout = Hilbert(block_rows=500).build(sample, block_rows=500, total_rows=4000)
>>> layout.curve, layout.block_count, layout.bits
('hilbert', 8, 5)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from skipstone.layout.curves import CurveLayout, build_curve_layout
from skipstone.layout.schema import LayoutData
from skipstone.layout.spec_registry import layout_spec
from skipstone.layout.specs import SizedSpec

# Routing tests every cut point of a column in a balanced CASE tree: 8 bits is 255 cut points
# per column, as fine as a table of thousands of blocks needs.
MAX_BITS = 8


def default_bits(blocks: float, columns: int) -> int:
    """Enough cells that every block spans few of them on each column (8 per block and column
    beyond the cells the blocks need), within ``MAX_BITS`` and a 63-bit key.

    >>> default_bits(blocks=100, columns=4), default_bits(blocks=8, columns=8), default_bits(10**6, 2)
    (5, 4, 8)
    """
    need = math.ceil(math.log2(max(blocks, 2.0)) / columns) + 3
    return max(1, min(need, MAX_BITS, 63 // columns))


@dataclass(frozen=True)
class _CurveSpec(SizedSpec):
    bits: int | None = None  # per column; None: default_bits
    curve = ""

    def build(self, sample: LayoutData, block_rows: float, total_rows: float) -> CurveLayout:
        """The curve layout over ``sample``: rows in curve order, cut into blocks of about ``block_rows`` rows."""
        width = len(self.columns) if self.columns is not None else sample.schema.width
        bits = self.bits or default_bits(total_rows / block_rows, width)
        return build_curve_layout(sample, self.curve, block_rows, total_rows, self.columns, bits)


@layout_spec
@dataclass(frozen=True)
class ZOrder(_CurveSpec):
    """Z-order (Morton) curve over ``columns`` (default: every orderable column), the layout of
    Delta Lake's ``OPTIMIZE ... ZORDER BY``.

    >>> ZOrder(columns=["l_shipdate", "l_quantity"], block_bytes=64 << 20).curve
    'zorder'
    """

    curve = "zorder"
    """The curve's name in the layout JSON."""


@layout_spec
@dataclass(frozen=True)
class Hilbert(_CurveSpec):
    """Hilbert curve over ``columns``: like Z-order, with no jumps between neighbouring cells.

    >>> Hilbert(columns=["x", "y"], block_rows=1000, bits=6).bits
    6
    """

    curve = "hilbert"
    """The curve's name in the layout JSON."""
