"""Amoeba's free transformations (§4.2): rewrites of the tree above the blocks that bring a
cut ``x[column] <= value`` to the top of a node. No row changes block, so they cost nothing to
apply; the optimizer combines them with swaps, which do rewrite rows (``adaptive/``).

- pushup: both children already start with the cut; it moves above the node's own cut.
- rotate left / right: the node cuts the same column, and its left (right) child starts with
  the cut; the cut moves up, as in a binary search tree rotation.

>>> from skipstone.layout.nodes import Leaf, Split
>>> node = Split(1, 5.0, Split(0, 2.0, Leaf(0), Leaf(1)), Split(0, 2.0, Leaf(2), Leaf(3)))
>>> PUSHUP.applies(node, 0, 2.0)
True
>>> top = PUSHUP.apply(node, 0, 2.0)
>>> (top.column, top.cut), [leaf.block for leaf in (top.left.left, top.left.right, top.right.left, top.right.right)]
((0, 2.0), [0, 2, 1, 3])
"""

from __future__ import annotations

from dataclasses import dataclass

from skipstone.layout.nodes import Node, Split


def starts_with(node: Node, column: int, value: float) -> bool:
    """Whether ``node`` is a split on exactly that cut."""
    return isinstance(node, Split) and node.column == column and node.cut == value


@dataclass(frozen=True)
class Pushup:
    """Both children cut at ``value`` on ``column``: that cut becomes the node's, the node's cut
    goes down into both halves."""

    name: str = "pushup"
    rewrites_rows: bool = False

    def applies(self, node: Node, column: int, value: float) -> bool:
        return (isinstance(node, Split) and not starts_with(node, column, value)
                and starts_with(node.left, column, value) and starts_with(node.right, column, value))

    def apply(self, node: Split, column: int, value: float) -> Split:
        _check(self, node, column, value)
        a, b = node.left, node.right
        return Split(column, value, Split(node.column, node.cut, a.left, b.left),  # type: ignore[union-attr]
                     Split(node.column, node.cut, a.right, b.right))  # type: ignore[union-attr]


@dataclass(frozen=True)
class RotateLeft:
    """The node cuts ``column`` above ``value`` and its left child starts with the cut: the
    child's cut becomes the node's."""

    name: str = "rotate"
    rewrites_rows: bool = False

    def applies(self, node: Node, column: int, value: float) -> bool:
        return (isinstance(node, Split) and node.column == column and value < node.cut
                and starts_with(node.left, column, value))

    def apply(self, node: Split, column: int, value: float) -> Split:
        _check(self, node, column, value)
        a = node.left
        return Split(column, value, a.left, Split(node.column, node.cut, a.right, node.right))  # type: ignore[union-attr]


@dataclass(frozen=True)
class RotateRight:
    """The node cuts ``column`` below ``value`` and its right child starts with the cut: the
    child's cut becomes the node's."""

    name: str = "rotate"
    rewrites_rows: bool = False

    def applies(self, node: Node, column: int, value: float) -> bool:
        return (isinstance(node, Split) and node.column == column and value > node.cut
                and starts_with(node.right, column, value))

    def apply(self, node: Split, column: int, value: float) -> Split:
        _check(self, node, column, value)
        b = node.right
        return Split(column, value, Split(node.column, node.cut, node.left, b.left), b.right)  # type: ignore[union-attr]


def _check(transform: Pushup | RotateLeft | RotateRight, node: Node, column: int, value: float) -> None:
    if not transform.applies(node, column, value):
        raise ValueError(f"{type(transform).__name__} cannot bring column {column} <= {value} to the top of {node!r}")


PUSHUP, ROTATE_LEFT, ROTATE_RIGHT = Pushup(), RotateLeft(), RotateRight()
FREE_TRANSFORMS = (PUSHUP, ROTATE_LEFT, ROTATE_RIGHT)
