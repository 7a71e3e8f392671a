"""JSON form of layouts, with a format version, so the Spark side can read and route with them.

    {"format": "skipstone.layout", "version": 1, "kind": "tree",
     "schema": [{"name": "x", "kind": "integer"}],
     "root": {"column": "x", "cut": 5.0,
              "left": {"block": 0, "rows": 6.0}, "right": {"block": 1, "rows": 4.0}}}

Infinite bounds of group boxes and descriptor MBRs are written as null. Each layout writes
itself (``to_json``, with the shared parts in ``layout_json.py``); this module reads any of them.

>>> from skipstone.layout.schema import Column, ColumnKind, Schema
>>> from skipstone.layout.tree import Leaf, PartitionTree, Split
>>> tree = PartitionTree(Schema((Column("x", ColumnKind.INTEGER),)), Split(0, 5.0, Leaf(0, 6), Leaf(1, 4)))
>>> layout_from_json(layout_to_json(tree)).root == tree.root
True
"""

from __future__ import annotations

from typing import Any, Mapping

from skipstone.layout.curves import CurveLayout
from skipstone.layout.layout import Layout
from skipstone.layout.layout_json import FORMAT, VERSION, node_from_json
from skipstone.layout.schema import Schema
from skipstone.layout.tree import PartitionTree


def layout_to_json(layout: Layout) -> dict[str, Any]:
    """Any layout as a JSON-ready dict.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import ZOrder, layout_to_json
    >>> document = layout_to_json(ZOrder(block_rows=1000).build(data, 1000, 8000))
    >>> document["curve"], len(document["blocks"])
    ('zorder', 8)
    """
    return layout.to_json()


def layout_from_json(document: Mapping[str, Any]) -> Layout:
    """Read a layout written by `layout_to_json`; refuses other formats and newer versions.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import KdTree, layout_from_json, layout_to_json
    >>> tree = KdTree(block_rows=1000).build(data, 1000, 8000)
    >>> layout_from_json(layout_to_json(tree)).block_count
    8
    """
    if document.get("format") != FORMAT:
        raise ValueError(f"not a skipstone layout: format is {document.get('format')!r}, expected {FORMAT!r}")
    version = document.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise ValueError(f"layout format version {version!r} is not supported (this reader knows up to {VERSION})")
    schema = Schema.from_json(document["schema"])
    kind = document.get("kind")
    if kind == "tree":
        return PartitionTree(schema, node_from_json(document["root"], schema))
    if kind == "curve":
        return CurveLayout.from_json(document, schema)
    raise ValueError(f"unknown layout kind {kind!r}")
