"""JSON form of layouts, with a format version, so the Spark side can read and route with them.

    {"format": "skipstone.layout", "version": 1, "kind": "tree",
     "schema": [{"name": "x", "kind": "integer"}],
     "root": {"column": "x", "cut": 5.0,
              "left": {"block": 0, "rows": 6.0}, "right": {"block": 1, "rows": 4.0}}}

Infinite bounds of group boxes and descriptor MBRs are written as null.

>>> from skipstone.layout.schema import Column, ColumnKind, Schema
>>> from skipstone.layout.tree import Leaf, PartitionTree, Split
>>> tree = PartitionTree(Schema((Column("x", ColumnKind.INTEGER),)), Split(0, 5.0, Leaf(0, 6), Leaf(1, 4)))
>>> layout_from_json(layout_to_json(tree)).root == tree.root
True
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from skipstone.layout.layout import Layout
from skipstone.layout.schema import Schema
from skipstone.layout.tree import Group, GroupSplit, Leaf, Node, PartitionTree, Split

FORMAT = "skipstone.layout"
VERSION = 1


def layout_to_json(layout: Layout) -> dict[str, Any]:
    """Any layout as a JSON-ready dict."""
    if isinstance(layout, PartitionTree):
        return tree_to_json(layout)
    return layout.to_json()  # type: ignore[attr-defined]


def layout_from_json(document: Mapping[str, Any]) -> Layout:
    """Read a layout written by `layout_to_json`; refuses other formats and newer versions."""
    if document.get("format") != FORMAT:
        raise ValueError(f"not a skipstone layout: format is {document.get('format')!r}, expected {FORMAT!r}")
    version = document.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise ValueError(f"layout format version {version!r} is not supported (this reader knows up to {VERSION})")
    schema = Schema.from_json(document["schema"])
    kind = document.get("kind")
    if kind == "tree":
        return PartitionTree(schema, _node_from_json(document["root"], schema))
    if kind == "curve":
        from skipstone.layout.curves import CurveLayout

        return CurveLayout.from_json(document, schema)
    raise ValueError(f"unknown layout kind {kind!r}")


def tree_to_json(tree: PartitionTree) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "kind": "tree",
        "schema": tree.schema.to_json(),
        "root": tree.root.accept(_ToJson(tree.schema)),
    }


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
            "cut": node.cut,
            "left": node.left.accept(self),
            "right": node.right.accept(self),
        }

    def group_split(self, node: GroupSplit) -> dict[str, Any]:
        groups = [
            {"low": bounds_to_json(g.low), "high": bounds_to_json(g.high), "child": g.child.accept(self)}
            for g in node.groups
        ]
        return {"groups": groups, "rest": node.rest.accept(self)}


def _node_from_json(item: Mapping[str, Any], schema: Schema) -> Node:
    if "block" in item:
        mbrs = tuple(
            (bounds_from_json(m["low"], -math.inf), bounds_from_json(m["high"], math.inf)) for m in item.get("mbrs", ())
        )
        return Leaf(int(item["block"]), float(item.get("rows", 0.0)), mbrs)
    if "column" in item:
        return Split(
            schema.index(item["column"]),
            float(item["cut"]),
            _node_from_json(item["left"], schema),
            _node_from_json(item["right"], schema),
        )
    if "groups" in item:
        groups = tuple(
            Group(
                bounds_from_json(g["low"], -math.inf),
                bounds_from_json(g["high"], math.inf),
                _node_from_json(g["child"], schema),
            )
            for g in item["groups"]
        )
        return GroupSplit(groups, _node_from_json(item["rest"], schema))
    raise ValueError(f"layout node {dict(item)!r} is neither a leaf, a split nor a group split")
