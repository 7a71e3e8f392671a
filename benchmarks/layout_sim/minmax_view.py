"""A layout seen the way Skipstone's per-file MinMax statistics see it.

A partitioning tree's own descriptors are its cuts: a block cut on o_orderdate says nothing
about l_shipdate. But the files Spark writes carry min/max of every column, so a reader also
skips by columns correlated with the cuts (the four TPC-H dates move together). The simulator's
``--descriptors minmax`` wraps each static layout in this view so its counts match what a
query on the managed table reads.

>>> import numpy as np
>>> from skipstone.layout import LayoutData, Query, build_range_tree
>>> x = np.arange(16.0)
>>> data = LayoutData.from_columns({"x": x, "y": x + 100})       # y moves with x
>>> tree = build_range_tree(data, "x", block_rows=4).with_counts(data)
>>> q = Query.from_json({"column": "y", "op": "<", "value": 102}, tree.schema)
>>> int(tree.touched(q).sum()), int(MinMaxView.of(tree, data).touched(q).sum())
(4, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skipstone.layout.boxes import block_bounding_boxes
from skipstone.layout.layout import Descriptors, Layout
from skipstone.layout.schema import LayoutData, Schema


@dataclass(frozen=True, eq=False)
class MinMaxView(Layout):
    """`inner`'s blocks and routing, described by the bounding box of the rows each holds."""

    inner: Layout
    low: np.ndarray
    high: np.ndarray

    @staticmethod
    def of(layout: Layout, data: LayoutData) -> "MinMaxView":
        low, high = block_bounding_boxes(data.values, layout.route(data), layout.block_count)
        return MinMaxView(layout, low, high)

    @property
    def schema(self) -> Schema:  # type: ignore[override]
        return self.inner.schema

    @property
    def block_ids(self) -> np.ndarray:
        return self.inner.block_ids

    @property
    def block_rows(self) -> np.ndarray:
        return self.inner.block_rows

    def descriptors(self) -> Descriptors:
        return Descriptors(self.low, self.high, np.arange(self.block_count, dtype=np.int64))

    def route(self, data: LayoutData) -> np.ndarray:
        return self.inner.route(data)

    def with_block_rows(self, rows: np.ndarray) -> Layout:
        return MinMaxView(self.inner.with_block_rows(rows), self.low, self.high)

    def to_json(self) -> dict[str, Any]:
        return self.inner.to_json()
