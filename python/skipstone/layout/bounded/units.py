"""Rewrite units: the subtrees of a partitioning tree, each a set of blocks that can be re-laid
out on its own, and the tree with some of them replaced.

A unit is a node of the tree: a leaf (one block) or an internal node (the blocks below it).
Re-laying a unit out replaces the node by a new subtree over the node's own region, so routing
stays exact by construction: a row reaches the node exactly as before, the rows of the unit's
blocks therefore go only to the new subtree's blocks, and every other row goes where it went.
(A set of blocks that is no subtree would need a group split over the union of their regions
in front of the tree: exact too, but every later step would lengthen every row's route.)

Blocks are the leaves in depth-first order, so a unit's blocks are the consecutive positions
``first .. end - 1``. A unit's address is its path of child indexes from the root: 0 and 1
for a split's left and right, k for a group split's group k and the number of groups for its rest.

>>> import numpy as np
>>> from skipstone.layout import LayoutData, build_kd_tree
>>> data = LayoutData.from_columns({"x": np.arange(8.0), "y": np.arange(8.0) % 4})
>>> tree = build_kd_tree(data, block_rows=2)
>>> [(u.path, u.first, u.end, u.rows) for u in tree_units(tree)][:3]
[((), 0, 4, 8.0), ((0,), 0, 2, 4.0), ((0, 0), 0, 1, 2.0)]
>>> describe_path(tree, (0, 1))
'x<=3 & y>1'
>>> replaced = replace_units(tree.root, {(0,): Leaf(9, 4.0)})
>>> [leaf.block for leaf in PartitionTree(tree.schema, replaced).leaves]
[9, 2, 3]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from skipstone.layout.boxes import BoxSet
from skipstone.layout.tree import Group, GroupSplit, Leaf, Node, PartitionTree, Split

Path = tuple[int, ...]


@dataclass(frozen=True, eq=False)
class TreeUnit:
    """A node of the tree as a rewrite unit: its blocks are the positions ``first .. end - 1``."""

    path: Path
    node: Node
    region: BoxSet  # where the node's rows lie: what routes a row to it
    first: int
    end: int
    rows: float  # the exact rows of its blocks

    @property
    def blocks(self) -> range:
        return range(self.first, self.end)

    def contains(self, other: TreeUnit) -> bool:
        """Whether ``other`` lies in this unit (or is it): rewriting both would rewrite twice."""
        return self.first <= other.first and other.end <= self.end


def tree_units(tree: PartitionTree) -> list[TreeUnit]:
    """Every node of the tree as a unit, parents before their children."""
    out: list[TreeUnit] = []
    _walk(tree.root, (), BoxSet.universe(tree.schema.width), 0, out)
    return out


def _walk(node: Node, path: Path, region: BoxSet, first: int, out: list[TreeUnit]) -> tuple[int, float]:
    """Appends the node's units; returns where its blocks end and how many rows they hold."""
    at = len(out)
    out.append(TreeUnit(path, node, region, first, first, 0.0))  # completed below, once its blocks are known
    if isinstance(node, Leaf):
        end, rows = first + 1, float(node.rows)
    elif isinstance(node, Split):
        middle, left_rows = _walk(node.left, path + (0,), region.restrict(node.column, -np.inf, node.cut), first, out)
        end, right_rows = _walk(node.right, path + (1,), region.restrict(node.column, node.cut, np.inf), middle, out)
        rows = left_rows + right_rows
    else:
        end, rows = first, 0.0
        taken = BoxSet.empty(region.width)
        for k, group in enumerate(node.groups):  # a row goes to the first group whose box holds it
            end, group_rows = _walk(group.child, path + (k,), region.intersect(group.box.subtract(taken)), end, out)
            taken, rows = taken.union(group.box), rows + group_rows
        end, rest_rows = _walk(node.rest, path + (len(node.groups),), region.subtract(taken), end, out)
        rows += rest_rows
    out[at] = TreeUnit(path, node, region, first, end, rows)
    return end, rows


def replace_units(root: Node, replacements: Mapping[Path, Node]) -> Node:
    """The tree with the node at each path replaced (paths must not lie in one another)."""
    if () in replacements:
        return replacements[()]
    if not replacements:
        return root
    if isinstance(root, Leaf):
        raise ValueError(f"paths {sorted(replacements)} go below leaf {root.block}")
    below = {}
    for path, node in replacements.items():
        below.setdefault(path[0], {})[path[1:]] = node
    if isinstance(root, Split):
        return Split(root.column, root.cut, replace_units(root.left, below.get(0, {})),
                     replace_units(root.right, below.get(1, {})))
    groups = tuple(Group(g.low, g.high, replace_units(g.child, below.get(k, {}))) for k, g in enumerate(root.groups))
    return GroupSplit(groups, replace_units(root.rest, below.get(len(root.groups), {})))


def describe_path(tree: PartitionTree, path: Path) -> str:
    """The cuts that lead to a unit, with column names: "x<=3 & y>1"; "root" for the whole tree."""
    parts, node = [], tree.root
    for step in path:
        if isinstance(node, Split):
            name = tree.schema.names[node.column]
            parts.append(f"{name}{'<=' if step == 0 else '>'}{node.cut:g}")
            node = node.right if step else node.left
        elif isinstance(node, GroupSplit):
            parts.append(f"group {step}" if step < len(node.groups) else "rest")
            node = node.groups[step].child if step < len(node.groups) else node.rest
        else:
            raise ValueError(f"path {path} goes below a leaf of the tree")
    return " & ".join(parts) if parts else "root"


def cut_columns(node: Node) -> list[int]:
    """The columns a subtree cuts on, the one whose cuts divide the most rows first: what a
    re-layout keeps cutting on after the hot queries' columns, so that the upfront tree's spread
    over the other columns is not forgotten.

    >>> cut_columns(Split(1, 5.0, Split(0, 2.0, Leaf(0, 3.0), Leaf(1, 3.0)), Leaf(2, 10.0)))
    [1, 0]
    """
    weight: dict[int, float] = {}

    def rows_below(n: Node) -> float:
        if isinstance(n, Leaf):
            return float(n.rows)
        if isinstance(n, Split):
            rows = rows_below(n.left) + rows_below(n.right)
            weight[n.column] = weight.get(n.column, 0.0) + rows
            return rows
        return sum(rows_below(g.child) for g in n.groups) + rows_below(n.rest)

    rows_below(node)
    return sorted(weight, key=lambda c: (-weight[c], c))
