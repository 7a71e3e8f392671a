"""Layout specs: what a managed table is laid out by, as a user names it.

A spec chooses the layout columns, the target block size and the builder; the table turns
``block_bytes`` into rows with its own estimate of bytes per row (or takes ``block_rows`` as
given) and calls :meth:`LayoutSpec.build` on a sample of its rows.

>>> import numpy as np
>>> from skipstone.layout import Amoeba, LayoutData
>>> sample = LayoutData.from_columns({"a": np.arange(1000), "b": np.arange(1000) % 7})
>>> Amoeba(block_rows=100).build(sample, block_rows=100, total_rows=1000).block_count
8
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol, Sequence, runtime_checkable

from skipstone.layout.builders.amoeba_upfront import build_amoeba_tree
from skipstone.layout.builders.data_aware import build_kd_tree, build_range_tree
from skipstone.layout.layout import Layout
from skipstone.layout.schema import LayoutData
from skipstone.layout.tree import PartitionTree

DEFAULT_BLOCK_BYTES = 128 << 20


@runtime_checkable
class LayoutSpec(Protocol):
    """What a table's layout is built by. ``columns`` None: every column the layout can order."""

    block_bytes: int | None
    block_rows: int | None
    columns: Sequence[str] | None

    def build(self, sample: LayoutData, block_rows: float, total_rows: float) -> Layout:
        """The layout (a tree or a curve layout) for a table of ``total_rows`` rows that ``sample`` stands for."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The spec as stored in the table's properties."""
        ...


@dataclass(frozen=True)
class _SizedSpec:
    block_bytes: int | None = DEFAULT_BLOCK_BYTES
    block_rows: int | None = None
    columns: Sequence[str] | None = None

    def __post_init__(self) -> None:
        if self.block_rows is not None and self.block_rows <= 0:
            raise ValueError(f"{type(self).__name__}: block_rows must be positive, got {self.block_rows}")
        if self.block_rows is None and (self.block_bytes is None or self.block_bytes <= 0):
            raise ValueError(f"{type(self).__name__}: give a positive block_bytes or block_rows")
        if self.columns is not None:
            object.__setattr__(self, "columns", tuple(self.columns))

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["columns"] = list(self.columns) if self.columns is not None else None
        return {"kind": type(self).__name__, **out}


@dataclass(frozen=True)
class Amoeba(_SizedSpec):
    """Amoeba's robust upfront tree (no workload needed): every column gets its share of cuts.

    >>> Amoeba(block_bytes=64 << 20, columns=["l_shipdate", "l_quantity"]).columns
    ('l_shipdate', 'l_quantity')
    """

    seed: int = 0

    def build(self, sample: LayoutData, block_rows: float, total_rows: float) -> PartitionTree:
        return build_amoeba_tree(sample, block_rows, total_rows, self.columns, seed=self.seed)


@dataclass(frozen=True)
class KdTree(_SizedSpec):
    """A k-d tree: median cuts, columns round robin by level."""

    def build(self, sample: LayoutData, block_rows: float, total_rows: float) -> PartitionTree:
        return build_kd_tree(sample, block_rows, total_rows, self.columns)


@dataclass(frozen=True)
class Range(_SizedSpec):
    """Range partitioning on one column (``columns=["ts"]``): median cuts on it alone."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.columns is None or len(self.columns) != 1:
            raise ValueError(f"Range partitions by exactly one column, e.g. Range(columns=['ts']); got {self.columns}")

    def build(self, sample: LayoutData, block_rows: float, total_rows: float) -> PartitionTree:
        return build_range_tree(sample, self.columns[0], block_rows, total_rows)  # type: ignore[index]
