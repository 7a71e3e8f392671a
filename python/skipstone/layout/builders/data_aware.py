"""Workload-oblivious trees: single-column range partitioning and the k-d tree.

Both split at medians of the sample until a node would hold fewer than 2 * block_rows rows, so
every block ends with block_rows to 2 * block_rows rows (PAW's [b_min, 2 b_min)).

>>> import numpy as np
>>> from skipstone.layout.schema import LayoutData
>>> data = LayoutData.from_columns({"x": np.arange(8), "y": np.arange(8) % 4})
>>> build_kd_tree(data, block_rows=2).root
Split(column=0, cut=3.0, left=Split(column=1, cut=1.0, left=Leaf(block=0, rows=2.0, mbrs=()), right=Leaf(block=1, rows=2.0, mbrs=())), right=Split(column=1, cut=1.0, left=Leaf(block=2, rows=2.0, mbrs=()), right=Leaf(block=3, rows=2.0, mbrs=())))
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from skipstone.layout.builders.median import check_block_rows, median_cut, sample_scale, too_small_to_cut
from skipstone.layout.schema import LayoutData
from skipstone.layout.tree import Leaf, Node, PartitionTree, Split, renumber

# chooses the column order to try at a node, given its depth
ColumnOrder = Callable[[int], Sequence[int]]


def build_range_tree(
    sample: LayoutData, column: str, block_rows: float, total_rows: float | None = None
) -> PartitionTree:
    """Range partitioning on one column: median cuts on it only, so ranges of equal size.

    >>> import numpy as np
    >>> from skipstone.layout.schema import LayoutData
    >>> data = LayoutData.from_columns({"x": np.arange(8), "y": np.zeros(8)})
    >>> [l.rows for l in build_range_tree(data, "x", block_rows=2).leaves]
    [2.0, 2.0, 2.0, 2.0]
    """
    index = sample.schema.index(column)
    return _grow_tree(sample, block_rows, total_rows, lambda depth: [index])


def build_kd_tree(
    sample: LayoutData, block_rows: float, total_rows: float | None = None, columns: Sequence[str] | None = None
) -> PartitionTree:
    """The k-d tree: columns in round robin by depth, median cuts; a column that cannot split
    a node (all its values equal there) gives way to the next one.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import build_kd_tree
    >>> tree = build_kd_tree(data, block_rows=1000, columns=["a"])
    >>> tree.block_count, tree.depth
    (8, 3)
    """
    order = _column_indexes(sample, columns)
    return _grow_tree(sample, block_rows, total_rows, lambda depth: order[depth % len(order) :] + order[: depth % len(order)])


def kd_refine(values: np.ndarray, rows: np.ndarray, scale: float, block_rows: float, order: Sequence[int], first_block: int = 0) -> Node:
    """A k-d subtree over the sample rows `rows` of `values` (PAW's data-aware refinement, §IV-E)."""
    order = list(order)
    node = _grow(values, rows, scale, block_rows, lambda d: order[d % len(order) :] + order[: d % len(order)], 0)
    return renumber(node, first_block)


def _column_indexes(sample: LayoutData, columns: Sequence[str] | None) -> list[int]:
    if columns is None:
        return list(range(sample.schema.width))
    if not columns:
        raise ValueError("columns must name at least one layout column")
    return [sample.schema.index(c) for c in columns]


def _grow_tree(sample: LayoutData, block_rows: float, total_rows: float | None, order: ColumnOrder) -> PartitionTree:
    check_block_rows(block_rows)
    scale = sample_scale(sample.rows, total_rows)
    root = _grow(sample.values, np.arange(sample.rows), scale, block_rows, order, 0)
    return PartitionTree(sample.schema, renumber(root))


def _grow(values: np.ndarray, rows: np.ndarray, scale: float, block_rows: float, order: ColumnOrder, depth: int) -> Node:
    if too_small_to_cut(len(rows), scale, block_rows):
        return Leaf(0, len(rows) * scale)
    for column in order(depth):
        column_values = values[rows, column]
        cut = median_cut(column_values)
        if cut is None:
            continue
        goes_left = column_values <= cut
        return Split(
            column,
            cut,
            _grow(values, rows[goes_left], scale, block_rows, order, depth + 1),
            _grow(values, rows[~goes_left], scale, block_rows, order, depth + 1),
        )
    return Leaf(0, len(rows) * scale)
