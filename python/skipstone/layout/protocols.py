"""The three seams of ``skipstone.layout``: what builds a layout, what prices reading it, and
what rewrites a tree locally. Each is a ``typing.Protocol``, so a new implementation is one
small class in one file that satisfies it; nothing has to inherit from us.

- ``Builder``: ``build(sample, block_rows, total_rows) -> Layout``. A ``LayoutSpec`` is a
  builder a managed table can store and read back: block size, columns, ``to_json`` and
  ``from_json`` (registered with ``@layout_spec``, ``spec_registry.py``).
- ``CostModel`` (``cost_model.py``): prices blocks by their row counts.
- ``Transform``: brings one cut to the top of a node without touching rows (Amoeba's pushup
  and rotate, ``transforms.py``). Amoeba's swap rewrites a subtree's rows from data and is
  priced by the optimizer itself (``adaptive/``).

>>> from skipstone.layout import Amoeba, RowsRead
>>> from skipstone.layout.transforms import PUSHUP
>>> isinstance(Amoeba(block_rows=100), LayoutSpec), isinstance(RowsRead(), CostModel), isinstance(PUSHUP, Transform)
(True, True, True)
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

from skipstone.layout.cost_model import CostModel
from skipstone.layout.layout import Layout
from skipstone.layout.nodes import Node, Split
from skipstone.layout.schema import LayoutData

__all__ = ["Builder", "CostModel", "LayoutSpec", "Transform"]


@runtime_checkable
class Builder(Protocol):
    """Lays a table out from a sample of its rows.

    >>> from skipstone.layout import Builder, ZOrder
    >>> isinstance(ZOrder(), Builder)
    True
    """

    def build(self, sample: LayoutData, block_rows: float, total_rows: float) -> Layout:
        """The layout (a tree or a curve layout) for a table of ``total_rows`` rows that
        ``sample`` stands for, with blocks of about ``block_rows`` rows."""
        ...


@runtime_checkable
class LayoutSpec(Builder, Protocol):
    """What a table's layout is built by, as a user names it and the table stores it.
    ``columns`` None: every column the layout can order. A table takes ``block_rows`` as given,
    or turns ``block_bytes`` into rows with its own estimate of bytes per row.

    >>> from skipstone.layout import KdTree, LayoutSpec
    >>> isinstance(KdTree(columns=["a"]), LayoutSpec)
    True
    """

    block_bytes: int | None
    """The target size of a block in bytes (used when ``block_rows`` is None)."""
    block_rows: int | None
    """The target rows per block; wins over ``block_bytes``."""
    columns: Sequence[str] | None
    """The layout columns; None: every column the layout can order."""

    def to_json(self) -> dict[str, Any]:
        """The spec as stored in the table's properties (``layout.spec``), with its ``kind``."""
        ...

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LayoutSpec:
        """The spec ``to_json`` wrote."""
        ...


@runtime_checkable
class Transform(Protocol):
    """A local rewrite at one node of a partitioning tree that puts the cut
    ``x[column] <= value`` at the node's top. Every row must reach the same leaf before and
    after; ``rewrites_rows`` False means no block changes, only the tree above them.

    >>> from skipstone.layout import Transform
    >>> from skipstone.layout.transforms import PUSHUP
    >>> isinstance(PUSHUP, Transform), PUSHUP.rewrites_rows
    (True, False)
    """

    name: str
    """The transform's name in plans and logs."""
    rewrites_rows: bool
    """True when applying it changes blocks (rows must be rewritten); False: only the tree above them."""

    def applies(self, node: Node, column: int, value: float) -> bool:
        """Whether the rewrite can bring that cut to the top of ``node``."""
        ...

    def apply(self, node: Split, column: int, value: float) -> Split:
        """The rewritten node; raises ValueError where ``applies`` is False."""
        ...
