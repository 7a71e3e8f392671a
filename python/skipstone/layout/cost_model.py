"""What reading a set of blocks costs: rows (the papers' unit) or what Spark pays, bytes plus a
fixed cost per file opened.

A cost model prices the blocks a query touches from their row counts. ``RowsRead`` is the
Amoeba and PAW cost, Cost(T, q) = sum of n_b. ``SparkCost`` is bytes read plus, per file, the
bytes Spark could have read in the time it spends opening one (footer, task, listing):
calibrate ``file_bytes`` on your cluster with ``benchmarks/layout_spark/calibrate_file_cost.py``.

>>> import numpy as np
>>> from skipstone.layout import LayoutData, Query, build_kd_tree
>>> data = LayoutData.from_columns({"x": np.arange(1000.0)})
>>> tree = build_kd_tree(data, block_rows=100)
>>> q = Query.from_ranges(data.schema, {"x": (0, 249)})
>>> tree.cost(q), tree.cost(q, RowsRead())
(250.0, 250.0)
>>> tree.cost(q, SparkCost(bytes_per_row=50, file_bytes=1 << 20, rows_per_file=200))
2109652.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class CostModel(Protocol):
    """Prices blocks by their row counts; a query's cost is the sum over the blocks it reads."""

    def block_costs(self, rows: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True)
class RowsRead:
    """The papers' cost: every row read costs 1."""

    def block_costs(self, rows: np.ndarray) -> np.ndarray:
        return np.asarray(rows, dtype=np.float64)


@dataclass(frozen=True)
class SparkCost:
    """Bytes read, plus ``file_bytes`` per file opened; a block of n rows is
    ceil(n / ``rows_per_file``) files (a table splits blocks above its file size limit)."""

    bytes_per_row: float
    file_bytes: float
    rows_per_file: float = math.inf

    def block_costs(self, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.float64)
        files = np.where(rows > 0, np.ceil(rows / self.rows_per_file) if math.isfinite(self.rows_per_file) else 1.0, 0.0)
        return rows * self.bytes_per_row + files * self.file_bytes
