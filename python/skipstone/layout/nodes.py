"""The nodes of a partitioning tree: binary cuts, PAW's grouped partitions, and leaves that
are blocks. Immutable values; a visitor per concern walks them (``accept``).

>>> Split(0, 5.0, Leaf(0, 6.0), Leaf(1, 4.0)).left
Leaf(block=0, rows=6.0, mbrs=())
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import numpy as np

from skipstone.layout.boxes import BoxSet

T = TypeVar("T", covariant=True)

Bounds = tuple[tuple[float, ...], tuple[float, ...]]


class NodeVisitor(Protocol, Generic[T]):  # type: ignore[misc]
    def leaf(self, node: Leaf) -> T: ...
    def split(self, node: Split) -> T: ...
    def group_split(self, node: GroupSplit) -> T: ...


@dataclass(frozen=True)
class Leaf:
    """A block: its id, its (estimated) rows, and optional precise-descriptor MBRs."""

    block: int
    rows: float = 0.0
    mbrs: tuple[Bounds, ...] = ()

    def accept(self, visitor: NodeVisitor[T]) -> T:
        """Call ``visitor.leaf``."""
        return visitor.leaf(self)


@dataclass(frozen=True)
class Split:
    """Rows with x[column] <= cut go left, the others right."""

    column: int
    cut: float
    left: Node
    right: Node

    def accept(self, visitor: NodeVisitor[T]) -> T:
        """Call ``visitor.split``."""
        return visitor.split(self)


@dataclass(frozen=True)
class Group:
    """A grouped partition: rows inside the box (low, high] go to `child`."""

    low: tuple[float, ...]
    high: tuple[float, ...]
    child: Node

    @property
    def box(self) -> BoxSet:
        """The group's box, from ``low`` to ``high``."""
        return BoxSet(np.array([self.low], dtype=np.float64), np.array([self.high], dtype=np.float64))


@dataclass(frozen=True)
class GroupSplit:
    """PAW's multi-group split: disjoint grouped partitions and the irregular rest."""

    groups: tuple[Group, ...]
    rest: Node

    def accept(self, visitor: NodeVisitor[T]) -> T:
        """Call ``visitor.group_split``."""
        return visitor.group_split(self)


Node = Leaf | Split | GroupSplit
