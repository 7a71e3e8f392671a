"""Space-filling-curve baselines: Z-order and Hilbert layouts.

Each column is quantized to `bits` bits by its sample quantiles (so skew does not waste the
grid), rows are ordered by their curve key, and the key range is cut into blocks of equal
rows. A block is described by the bounding box of the rows it holds (min/max per column, the
zone map a reader keeps), which is how such layouts skip in practice.

>>> import numpy as np
>>> from skipstone.layout.schema import LayoutData
>>> rng = np.random.default_rng(0)
>>> data = LayoutData.from_columns({"x": rng.random(4096), "y": rng.random(4096)})
>>> layout = build_curve_layout(data, "hilbert", block_rows=512)
>>> layout.block_count, int(layout.block_rows.sum())
(8, 4096)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from skipstone.layout.boxes import block_bounding_boxes
from skipstone.layout.builders.median import check_block_rows, sample_scale
from skipstone.layout.layout import Descriptors, Layout
from skipstone.layout.layout_json import FORMAT, VERSION, bounds_from_json, bounds_to_json, number_to_json
from skipstone.layout.schema import LayoutData, Schema

CURVES = ("zorder", "hilbert")


@dataclass(frozen=True, eq=False)
class CurveLayout(Layout):
    """Rows ordered along a space-filling curve (``ZOrder``, ``Hilbert``) and cut into blocks of
    consecutive curve keys; each block is described by the box of the rows it holds.

    >>> from skipstone.layout import ZOrder
    >>> ZOrder(columns=["a", "b"], block_rows=1000).curve
    'zorder'
    """

    schema: Schema
    curve: str
    columns: tuple[int, ...]
    bits: int
    edges: tuple[np.ndarray, ...]  # per curve column: quantile edges used to quantize it
    boundaries: np.ndarray  # block k holds keys in (boundaries[k-1], boundaries[k]]
    rows: np.ndarray
    low: np.ndarray  # per block: the descriptor box, from the rows it holds
    high: np.ndarray

    @property
    def block_ids(self) -> np.ndarray:  # type: ignore[override]
        return np.arange(len(self.rows), dtype=np.int64)

    @property
    def block_rows(self) -> np.ndarray:  # type: ignore[override]
        return self.rows

    def descriptors(self) -> Descriptors:
        return Descriptors(self.low, self.high, np.arange(len(self.rows), dtype=np.int64))

    def keys(self, values: np.ndarray) -> np.ndarray:
        """The curve key of each row of encoded ``values``."""
        codes = np.column_stack(
            [np.searchsorted(e, values[:, c], side="left") for c, e in zip(self.columns, self.edges)]
        ).astype(np.uint64)
        return (zorder_keys if self.curve == "zorder" else hilbert_keys)(codes, self.bits)

    def route(self, data: LayoutData) -> np.ndarray:
        return self.positions_of(self.keys(data.values))

    def positions_of(self, keys: np.ndarray) -> np.ndarray:
        """The block of each curve key: the first whose upper boundary is not below it."""
        return np.minimum(np.searchsorted(self.boundaries, keys, side="left"), len(self.rows) - 1)

    def with_block_rows(self, rows: np.ndarray) -> CurveLayout:
        return CurveLayout(self.schema, self.curve, self.columns, self.bits, self.edges, self.boundaries,
                           np.asarray(rows, dtype=np.float64), self.low, self.high)

    def with_counts(self, data: LayoutData, scale: float = 1.0, keys: np.ndarray | None = None) -> CurveLayout:
        """Row counts and descriptor boxes from the rows `data` puts in each block."""
        positions = self.route(data) if keys is None else self.positions_of(keys)
        low, high = block_bounding_boxes(data.values, positions, len(self.rows))
        counts = np.bincount(positions, minlength=len(self.rows)).astype(np.float64) * scale
        return CurveLayout(self.schema, self.curve, self.columns, self.bits, self.edges, self.boundaries, counts, low, high)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "version": VERSION, "kind": "curve", "schema": self.schema.to_json(),
            "curve": self.curve, "bits": self.bits,
            "columns": [self.schema.columns[c].name for c in self.columns],
            "edges": [[number_to_json(v) for v in e] for e in self.edges],
            "boundaries": [int(b) for b in self.boundaries],
            "blocks": [{"rows": float(r), "low": bounds_to_json(lo), "high": bounds_to_json(hi)}
                       for r, lo, hi in zip(self.rows, self.low, self.high)],
        }

    @staticmethod
    def from_json(document: Mapping[str, Any], schema: Schema) -> CurveLayout:
        """The curve layout ``to_json`` wrote, over ``schema``."""
        blocks = document["blocks"]
        return CurveLayout(
            schema, document["curve"], tuple(schema.index(c) for c in document["columns"]), int(document["bits"]),
            tuple(np.array([float(v) for v in e], dtype=np.float64) for e in document["edges"]),
            np.array(document["boundaries"], dtype=np.uint64),
            np.array([b["rows"] for b in blocks], dtype=np.float64),
            np.array([bounds_from_json(b["low"], -np.inf) for b in blocks], dtype=np.float64).reshape(len(blocks), -1),
            np.array([bounds_from_json(b["high"], np.inf) for b in blocks], dtype=np.float64).reshape(len(blocks), -1),
        )


def build_curve_layout(
    sample: LayoutData,
    curve: str,
    block_rows: float,
    total_rows: float | None = None,
    columns: Sequence[str] | None = None,
    bits: int | None = None,
) -> CurveLayout:
    """A Z-order ("zorder") or Hilbert ("hilbert") layout over `columns` (default: all) with
    floor(total / block_rows) blocks; `bits` per column defaults to min(16, 63 // columns).

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import build_curve_layout
    >>> layout = build_curve_layout(data, "zorder", block_rows=1000)
    >>> layout.block_count, layout.curve
    (8, 'zorder')
    """
    if curve not in CURVES:
        raise ValueError(f"unknown curve {curve!r}; use one of {CURVES}")
    check_block_rows(block_rows)
    scale = sample_scale(sample.rows, total_rows)
    chosen = tuple(range(sample.schema.width)) if columns is None else tuple(sample.schema.index(c) for c in columns)
    if not chosen:
        raise ValueError("columns must name at least one layout column")
    bits = bits if bits is not None else min(16, 63 // len(chosen))
    if bits < 1 or bits * len(chosen) > 63:
        raise ValueError(f"bits={bits} over {len(chosen)} columns does not fit a 63-bit curve key")
    levels = np.arange(1, 1 << bits) / (1 << bits)
    # Between -inf (NULL) and +inf (NaN) a quantile interpolates to NaN: no value sorts there.
    with np.errstate(invalid="ignore"):
        edges = tuple(_without_nan(np.unique(np.quantile(sample.values[:, c], levels))) for c in chosen)
    blocks = max(1, int(sample.rows * scale // block_rows))
    shell = CurveLayout(sample.schema, curve, chosen, bits, edges, np.zeros(0, np.uint64), np.zeros(1), np.zeros((1, 0)), np.zeros((1, 0)))
    unsorted_keys = shell.keys(sample.values)
    keys = np.sort(unsorted_keys)
    # block k ends with the last key of its share of the sorted sample
    cuts = keys[np.clip((np.arange(1, blocks) * len(keys)) // blocks - 1, 0, len(keys) - 1)]
    boundaries = np.append(np.unique(cuts), np.iinfo(np.uint64).max).astype(np.uint64)
    empty = CurveLayout(sample.schema, curve, chosen, bits, edges, boundaries, np.zeros(len(boundaries)),
                        np.zeros((len(boundaries), sample.schema.width)), np.zeros((len(boundaries), sample.schema.width)))
    return empty.with_counts(sample, scale, unsorted_keys)


def zorder_keys(codes: np.ndarray, bits: int) -> np.ndarray:
    """Interleave the bits of each row's codes, most significant first.

    >>> zorder_keys(np.array([[1, 0], [0, 1], [1, 1]], dtype=np.uint64), 1).tolist()
    [2, 1, 3]
    """
    key = np.zeros(len(codes), dtype=np.uint64)
    one = np.uint64(1)
    for b in reversed(range(bits)):
        for d in range(codes.shape[1]):
            key = (key << one) | ((codes[:, d] >> np.uint64(b)) & one)
    return key


def hilbert_keys(codes: np.ndarray, bits: int) -> np.ndarray:
    """Hilbert index of each row (Skilling's transpose algorithm, vectorized over rows).

    >>> hilbert_keys(np.array([[0, 0], [0, 1], [1, 1], [1, 0]], dtype=np.uint64), 1).tolist()
    [0, 1, 2, 3]
    """
    x = np.asfortranarray(codes, dtype=np.uint64).copy(order="F")  # column passes stay contiguous
    dims = x.shape[1]
    q = np.uint64(1 << (bits - 1))
    while q > 1:
        p = q - np.uint64(1)
        for i in range(dims):
            high = (x[:, i] & q) != 0
            swap = ((x[:, 0] ^ x[:, i]) & p) * (~high)
            x[:, 0] = np.where(high, x[:, 0] ^ p, x[:, 0] ^ swap)
            if i:
                x[:, i] ^= swap
        q >>= np.uint64(1)
    for i in range(1, dims):
        x[:, i] ^= x[:, i - 1]
    t = np.zeros(len(x), dtype=np.uint64)
    q = np.uint64(1 << (bits - 1))
    while q > 1:
        t ^= np.where((x[:, dims - 1] & q) != 0, q - np.uint64(1), np.uint64(0))
        q >>= np.uint64(1)
    x ^= t[:, None]
    return zorder_keys(x, bits)


def _without_nan(edges: np.ndarray) -> np.ndarray:
    return edges[~np.isnan(edges)]
