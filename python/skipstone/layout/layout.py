"""What every layout offers: blocks with row counts, descriptors, lookup and routing.

A layout is a set of blocks. Each block is described by one or more boxes (its descriptor);
a query reads every block whose descriptor intersects one of the query's boxes. Partitioning
trees derive descriptors from their cuts; curve layouts from the data they hold.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from skipstone.layout.boxes import touching
from skipstone.layout.cost_model import CostModel
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData, Schema


@dataclass(frozen=True, eq=False)
class Descriptors:
    """Boxes describing blocks: box k belongs to the block at position `owner[k]`.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import KdTree
    >>> boxes = KdTree(block_rows=1000).build(data, 1000, 8000).descriptors()
    >>> boxes.low.shape, boxes.owner[:3].tolist()
    ((8, 2), [0, 1, 2])
    """

    low: np.ndarray
    high: np.ndarray
    owner: np.ndarray


class Layout(ABC):
    """A partition layout over `schema`; blocks are addressed by position 0..blocks-1.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import Layout, ZOrder
    >>> layout = ZOrder(block_rows=1000).build(data, 1000, 8000)
    >>> isinstance(layout, Layout), layout.block_count, layout.total_rows
    (True, 8, 8000.0)
    """

    schema: Schema
    """The layout's columns, in the order its boxes and encoded rows use."""

    @property
    @abstractmethod
    def block_ids(self) -> np.ndarray:
        """Stable block identifiers, by position."""

    @property
    @abstractmethod
    def block_rows(self) -> np.ndarray:
        """Rows (or estimated rows) per block, by position."""

    @abstractmethod
    def descriptors(self) -> Descriptors:
        """The boxes a query is checked against."""

    @abstractmethod
    def route(self, data: LayoutData) -> np.ndarray:
        """The block position each row belongs to."""

    @abstractmethod
    def with_block_rows(self, rows: np.ndarray) -> Layout:
        """The same layout with new row counts per block."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The layout in the versioned JSON format ``serialization.layout_from_json`` reads."""

    @property
    def block_count(self) -> int:
        """The number of blocks."""
        return int(len(self.block_ids))

    @property
    def total_rows(self) -> float:
        """Rows (or estimated rows) over all blocks."""
        return float(self.block_rows.sum())

    def touched(self, query: Query) -> np.ndarray:
        """A boolean per block position: the query must read this block.

        >>> import numpy as np
        >>> from skipstone.layout import LayoutData, Query, build_kd_tree
        >>> data = LayoutData.from_columns({"x": np.arange(8), "y": np.arange(8) % 4})
        >>> tree = build_kd_tree(data, block_rows=2)
        >>> q = Query.from_json({"and": [{"column": "x", "op": "<", "value": 2},
        ...                              {"column": "y", "op": "<", "value": 2}]}, tree.schema)
        >>> tree.touched(q).tolist()
        [True, False, False, False]
        """
        d = self.descriptors()
        hit = touching(d.low, d.high, query.boxes)
        out = np.zeros(self.block_count, dtype=bool)
        out[d.owner[hit]] = True
        return out

    def blocks_for(self, query: Query) -> np.ndarray:
        """The ids of the blocks the query reads."""
        return self.block_ids[self.touched(query)]

    def cost(self, query: Query, model: CostModel | None = None) -> float:
        """Rows read by the query: Cost(T, q) = sum of n_b over the blocks it touches; with a
        ``model`` (a ``CostModel`` such as ``SparkCost`` or ``RowsRead``), that model's price of those blocks."""
        touched = self.block_rows[self.touched(query)]
        return float(touched.sum() if model is None else model.block_costs(touched).sum())

    def with_counts(self, data: LayoutData, scale: float = 1.0) -> Layout:
        """Row counts from routing `data` (a sample, scaled up by `scale`)."""
        counts = np.bincount(self.route(data), minlength=self.block_count).astype(np.float64)
        return self.with_block_rows(counts * scale)
