"""Partitioning trees: binary cuts, PAW's grouped partitions, and leaves that are blocks.

A `Split` sends rows with `x[column] <= cut` left and the rest right (Amoeba's A_p). A
`GroupSplit` (PAW's multi-group split) sends a row to the first group whose box holds it and
every other row to `rest`, the irregular partition. A `Leaf` is a block; it may carry a precise
descriptor, several MBRs that cover its rows (PAW §V-A).

>>> import numpy as np
>>> from skipstone.layout.schema import Column, ColumnKind, Schema
>>> schema = Schema((Column("x", ColumnKind.INTEGER),))
>>> tree = PartitionTree(schema, Split(0, 5.0, Leaf(0, 6), Leaf(1, 4)))
>>> tree.route(LayoutData(schema, np.array([[1.0], [7.0]]))).tolist()
[0, 1]
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from skipstone.layout.boxes import BoxSet
from skipstone.layout.layout import Descriptors, Layout
from skipstone.layout.layout_json import tree_document
from skipstone.layout.nodes import Bounds, Group, GroupSplit, Leaf, Node, NodeVisitor, Split
from skipstone.layout.routing import compile_router
from skipstone.layout.schema import LayoutData, Schema

# The node types live in nodes.py (routing and the JSON form need them without the tree);
# they are re-exported here, where most callers look for them.
__all__ = ["Bounds", "Group", "GroupSplit", "Leaf", "Node", "NodeVisitor", "PartitionTree", "Split",
           "leaves_of", "map_leaves", "node_rows", "renumber"]


@dataclass(frozen=True, eq=False)
class PartitionTree(Layout):
    """A layout whose blocks are the leaves of a tree, in depth-first order.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import Leaf, PartitionTree, Split
    >>> tree = PartitionTree(data.schema, Split(0, 3999.0, Leaf(0), Leaf(1))).with_counts(data)
    >>> tree.block_count, tree.depth, tree.cost(query)
    (2, 1, 4000.0)
    """

    schema: Schema
    root: Node
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def leaves(self) -> tuple[Leaf, ...]:
        """The leaves, left to right; each is a block."""
        return tuple(self.root.accept(_Leaves()))

    @cached_property
    def block_ids(self) -> np.ndarray:  # type: ignore[override]
        return np.array([leaf.block for leaf in self.leaves], dtype=np.int64)

    @cached_property
    def block_rows(self) -> np.ndarray:  # type: ignore[override]
        return np.array([leaf.rows for leaf in self.leaves], dtype=np.float64)

    @cached_property
    def depth(self) -> int:
        """The number of levels below the root."""
        return self.root.accept(_Depth())

    def descriptors(self) -> Descriptors:
        if "descriptors" not in self._cache:
            boxes: list[tuple[BoxSet, int]] = []
            self.root.accept(_Regions(BoxSet.universe(self.schema.width), boxes, [0]))
            low = np.vstack([b.low for b, _ in boxes]) if boxes else np.empty((0, self.schema.width))
            high = np.vstack([b.high for b, _ in boxes]) if boxes else np.empty((0, self.schema.width))
            owner = np.concatenate([np.full(b.count, p) for b, p in boxes]).astype(np.int64) if boxes else np.empty(0, np.int64)
            self._cache["descriptors"] = Descriptors(low, high, owner)
        return self._cache["descriptors"]

    def route(self, data: LayoutData) -> np.ndarray:
        if "router" not in self._cache:
            self._cache["router"] = compile_router(self.root)
        return self._cache["router"].route(data.values)

    def with_block_rows(self, rows: np.ndarray) -> PartitionTree:
        if len(rows) != self.block_count:
            raise ValueError(f"got {len(rows)} row counts for a tree of {self.block_count} leaves")
        counts = iter(np.asarray(rows, dtype=np.float64).tolist())
        return PartitionTree(self.schema, self.root.accept(_MapLeaves(lambda leaf: replace(leaf, rows=next(counts)))))

    def with_leaves(self, change: object) -> PartitionTree:
        """A tree whose leaves are `change(leaf)` (a function Leaf -> Node)."""
        return PartitionTree(self.schema, self.root.accept(_MapLeaves(change)))  # type: ignore[arg-type]

    def allocation(self) -> np.ndarray:
        """Amoeba's Allocation_i(T): sum over nodes cutting on i of DataFraction_n * Fanout_n."""
        out = np.zeros(self.schema.width)
        total = self.total_rows or 1.0
        self.root.accept(_Allocation(out, total))
        return out

    def to_json(self) -> dict[str, Any]:
        """The tree in the layout JSON format (``layout_to_json`` and ``layout_from_json``)."""
        return tree_document(self.schema, self.root)


def renumber(root: Node, first_block: int = 0) -> Node:
    """The same tree with leaves numbered first_block, first_block+1, ... depth first."""
    counter = iter(range(first_block, 1 << 62))
    return root.accept(_MapLeaves(lambda leaf: replace(leaf, block=next(counter))))


def map_leaves(root: Node, change: object) -> Node:
    """The same tree with every leaf replaced by `change(leaf)`."""
    return root.accept(_MapLeaves(change))


def node_rows(node: Node) -> float:
    return float(sum(leaf.rows for leaf in node.accept(_Leaves())))


def leaves_of(node: Node) -> list[Leaf]:
    return node.accept(_Leaves())


class _Leaves:
    def leaf(self, node: Leaf) -> list[Leaf]:
        return [node]

    def split(self, node: Split) -> list[Leaf]:
        return node.left.accept(self) + node.right.accept(self)

    def group_split(self, node: GroupSplit) -> list[Leaf]:
        out: list[Leaf] = []
        for g in node.groups:
            out += g.child.accept(self)
        return out + node.rest.accept(self)


class _Depth:
    def leaf(self, node: Leaf) -> int:
        return 0

    def split(self, node: Split) -> int:
        return 1 + max(node.left.accept(self), node.right.accept(self))

    def group_split(self, node: GroupSplit) -> int:
        return 1 + max([g.child.accept(self) for g in node.groups] + [node.rest.accept(self)])


class _MapLeaves:
    def __init__(self, change: object) -> None:
        self.change = change

    def leaf(self, node: Leaf) -> Node:
        return self.change(node)  # type: ignore[operator]

    def split(self, node: Split) -> Node:
        return Split(node.column, node.cut, node.left.accept(self), node.right.accept(self))

    def group_split(self, node: GroupSplit) -> Node:
        groups = tuple(Group(g.low, g.high, g.child.accept(self)) for g in node.groups)
        return GroupSplit(groups, node.rest.accept(self))


class _Regions:
    """Each leaf's region as boxes: cuts restrict the region; the rest of a group split is its
    region minus the groups' boxes, which is why a region can need several boxes."""

    def __init__(self, region: BoxSet, out: list[tuple[BoxSet, int]], position: list[int]) -> None:
        self.region, self.out, self.position = region, out, position

    def _with(self, region: BoxSet) -> _Regions:
        return _Regions(region, self.out, self.position)

    def leaf(self, node: Leaf) -> None:
        region = self.region
        if node.mbrs:
            mbrs = BoxSet(np.array([m[0] for m in node.mbrs]), np.array([m[1] for m in node.mbrs]))
            region = region.intersect(mbrs)
        self.out.append((region, self.position[0]))
        self.position[0] += 1

    def split(self, node: Split) -> None:
        node.left.accept(self._with(self.region.restrict(node.column, -np.inf, node.cut)))
        node.right.accept(self._with(self.region.restrict(node.column, node.cut, np.inf)))

    def group_split(self, node: GroupSplit) -> None:
        taken = BoxSet.empty(self.region.width)
        for g in node.groups:
            box = g.box.subtract(taken)  # a row goes to the first group that holds it
            g.child.accept(self._with(self.region.intersect(box)))
            taken = taken.union(g.box)
        node.rest.accept(self._with(self.region.subtract(taken)))


class _Allocation:
    def __init__(self, out: np.ndarray, total: float) -> None:
        self.out, self.total = out, total

    def leaf(self, node: Leaf) -> float:
        return node.rows

    def split(self, node: Split) -> float:
        rows = node.left.accept(self) + node.right.accept(self)
        self.out[node.column] += 2.0 * rows / self.total
        return rows

    def group_split(self, node: GroupSplit) -> float:
        return sum(g.child.accept(self) for g in node.groups) + node.rest.accept(self)
