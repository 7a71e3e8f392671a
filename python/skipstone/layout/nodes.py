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
    """A block: its id, its (estimated) rows, and optional precise-descriptor MBRs.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import Leaf, PartitionTree, Split
    >>> tree = PartitionTree(data.schema, Split(0, 3999.0, Leaf(0), Leaf(1)))
    >>> tree.with_counts(data).leaves
    (Leaf(block=0, rows=4000.0, mbrs=()), Leaf(block=1, rows=4000.0, mbrs=()))
    """

    block: int
    rows: float = 0.0
    mbrs: tuple[Bounds, ...] = ()

    def accept(self, visitor: NodeVisitor[T]) -> T:
        """Call ``visitor.leaf``."""
        return visitor.leaf(self)


@dataclass(frozen=True)
class Split:
    """Rows with x[column] <= cut go left, the others right.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import Leaf, PartitionTree, Split
    >>> PartitionTree(data.schema, Split(1, 49.0, Leaf(0), Leaf(1))).route(data)[[0, 50, 99]]   # on b <= 49
    array([0, 1, 1])
    """

    column: int
    cut: float
    left: Node
    right: Node

    def accept(self, visitor: NodeVisitor[T]) -> T:
        """Call ``visitor.split``."""
        return visitor.split(self)


@dataclass(frozen=True)
class Group:
    """A grouped partition: rows inside the box (low, high] go to `child`.

    >>> from skipstone.layout import Group, GroupSplit, Leaf
    >>> Group((0.0, 0.0), (10.0, 10.0), Leaf(0)).box.count
    1
    """

    low: tuple[float, ...]
    high: tuple[float, ...]
    child: Node

    @property
    def box(self) -> BoxSet:
        """The group's box, from ``low`` to ``high``."""
        return BoxSet(np.array([self.low], dtype=np.float64), np.array([self.high], dtype=np.float64))


@dataclass(frozen=True)
class GroupSplit:
    """PAW's multi-group split: disjoint grouped partitions and the irregular rest.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import Group, GroupSplit, Leaf, PartitionTree
    >>> node = GroupSplit((Group((-1.0, -1.0), (999.0, 100.0), Leaf(0)),), Leaf(1))
    >>> PartitionTree(data.schema, node).route(data)[[0, 5000]]
    array([0, 1])
    """

    groups: tuple[Group, ...]
    rest: Node

    def accept(self, visitor: NodeVisitor[T]) -> T:
        """Call ``visitor.group_split``."""
        return visitor.group_split(self)


Node = Leaf | Split | GroupSplit
