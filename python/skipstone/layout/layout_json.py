"""The parts of the layout JSON format (``serialization.py``) that trees and curve layouts
write themselves: the format's name and version, bounds with infinities as null, infinite cuts
as strings, and a tree's nodes. No layout class is imported here, so each layout can use it.

>>> from skipstone.layout.nodes import Leaf, Split
>>> from skipstone.layout.schema import Column, ColumnKind, Schema
>>> schema = Schema((Column("x", ColumnKind.INTEGER),))
>>> node_to_json(Split(0, 5.0, Leaf(0, 6.0), Leaf(1, 4.0)), schema)["left"]
{'block': 0, 'rows': 6.0}
>>> node_from_json(node_to_json(Split(0, 5.0, Leaf(0), Leaf(1)), schema), schema) == Split(0, 5.0, Leaf(0), Leaf(1))
True
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from skipstone.layout.nodes import Group, GroupSplit, Leaf, Node, Split
from skipstone.layout.schema import Schema

FORMAT = "skipstone.layout"
VERSION = 1


def tree_document(schema: Schema, root: Node) -> dict[str, Any]:
    """A partitioning tree as a whole layout document."""
    return {"format": FORMAT, "version": VERSION, "kind": "tree", "schema": schema.to_json(),
            "root": node_to_json(root, schema)}


def node_to_json(node: Node, schema: Schema) -> dict[str, Any]:
    """A node and everything below it, columns by name."""
    return node.accept(_ToJson(schema))


def number_to_json(value: float) -> float | str:
    """A cut or an edge: a number, or the string "Infinity" / "-Infinity" (strict JSON has no
    infinities, and a cut at -inf, the encoding of NULL, is a real cut). ``float()`` reads both."""
    v = float(value)
    return v if math.isfinite(v) else ("Infinity" if v > 0 else "-Infinity" if v < 0 else "NaN")


def bounds_to_json(values: Any) -> list[float | None]:
    return [None if math.isinf(v) else float(v) for v in values]


def bounds_from_json(values: list[float | None], missing: float) -> tuple[float, ...]:
    return tuple(missing if v is None else float(v) for v in values)


class _ToJson:
    def __init__(self, schema: Schema) -> None:
        self.schema = schema

    def leaf(self, node: Leaf) -> dict[str, Any]:
        out: dict[str, Any] = {"block": node.block, "rows": node.rows}
        if node.mbrs:
            out["mbrs"] = [{"low": bounds_to_json(lo), "high": bounds_to_json(hi)} for lo, hi in node.mbrs]
        return out

    def split(self, node: Split) -> dict[str, Any]:
        return {
            "column": self.schema.columns[node.column].name,
            "cut": number_to_json(node.cut),
            "left": node.left.accept(self),
            "right": node.right.accept(self),
        }

    def group_split(self, node: GroupSplit) -> dict[str, Any]:
        groups = [
            {"low": bounds_to_json(g.low), "high": bounds_to_json(g.high), "child": g.child.accept(self)}
            for g in node.groups
        ]
        return {"groups": groups, "rest": node.rest.accept(self)}


def node_from_json(item: Mapping[str, Any], schema: Schema) -> Node:
    """Read a node written by `node_to_json` against `schema`."""
    if "block" in item:
        mbrs = tuple(
            (bounds_from_json(m["low"], -math.inf), bounds_from_json(m["high"], math.inf)) for m in item.get("mbrs", ())
        )
        return Leaf(int(item["block"]), float(item.get("rows", 0.0)), mbrs)
    if "column" in item:
        return Split(
            schema.index(item["column"]),
            float(item["cut"]),
            node_from_json(item["left"], schema),
            node_from_json(item["right"], schema),
        )
    if "groups" in item:
        groups = tuple(
            Group(
                bounds_from_json(g["low"], -math.inf),
                bounds_from_json(g["high"], math.inf),
                node_from_json(g["child"], schema),
            )
            for g in item["groups"]
        )
        return GroupSplit(groups, node_from_json(item["rest"], schema))
    raise ValueError(f"layout node {dict(item)!r} is neither a leaf, a split nor a group split")
