"""What reading and rewriting blocks costs: rows (the papers' unit) or what Spark pays.

A cost model prices the blocks a query touches from their row counts, and prices a rewrite:
``c x (write_costs(rewritten blocks).sum() + job_cost)`` with c the policy's write multiplier
(a written unit costs c read units). ``write_costs`` is optional and defaults to
``block_costs``; ``SparkCost`` prices a rewrite by its bytes alone, since c was measured per
byte rewritten (opening a file is a cost of reading it). ``RowsRead`` is the Amoeba and PAW cost: Cost(T, q) =
sum of n_b and a rewrite costs c x its rows. ``SparkCost`` is bytes read plus, per file, the
bytes Spark could have read in the time it spends opening one (footer, task, listing), and a
fixed ``job_bytes`` per rewrite: the Spark job that reads, routes, writes, re-indexes and
commits costs seconds whatever its size, which a price per row cannot see. A query has a fixed
price too, ``query_bytes`` (``query_price``): Spark plans, lists and schedules it whatever it
reads. No layout saves it, so it moves no rewrite's gain or break-even; it is what makes a
model's total for a workload, and a saving's share of what a query costs, match the wall clock.

The defaults were calibrated on Spark (local[2], 2 shared cores; TPC-H SF 1) by
``python -m benchmarks.layout_spark.calibrate_file_cost --reads --rewrites --sf 1 --blocks 256``
(benchmarks/layout_spark/results/calibration.json). Calibrate on your cluster and pass your
own ``SparkCost`` to the policies.

>>> import numpy as np
>>> from skipstone.layout import LayoutData, Query, build_kd_tree
>>> data = LayoutData.from_columns({"x": np.arange(1000.0)})
>>> tree = build_kd_tree(data, block_rows=100)
>>> q = Query.from_ranges(data.schema, {"x": (0, 249)})
>>> tree.cost(q), tree.cost(q, RowsRead())
(250.0, 250.0)
>>> tree.cost(q, SparkCost(bytes_per_row=50, file_bytes=1 << 20, rows_per_file=200))
2109652.0
>>> rewrite_cost(RowsRead(), np.array([100.0, 100.0]), write_multiplier=4)
800.0
>>> rewrite_cost(SparkCost(bytes_per_row=50, file_bytes=1000, job_bytes=10_000), np.array([100.0]), write_multiplier=2)
30000.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Mapping, Protocol, runtime_checkable

import numpy as np

# Calibrated on Spark: benchmarks/layout_spark/results/calibration.json (see the module doc),
# TPC-H SF 1 in 256 and 32 files, local[2], 2026-11-27. Reads: 0.25 s per query, 2.6 s per GB of
# the files and 2.6 ms per file opened, by a query reading 17.8 % of each file's bytes (three of
# its 25 columns), so 14.6 s per GB of the columns read: a query's bytes are priced as the
# columns it reads (``read_share``); rewrites: 1.7 s per job plus 150 s/GB (the rows are read,
# routed to their blocks, shuffled, written, indexed and committed). The first calibration
# (2026-11-23, an older rewrite path, a busier machine) gave 221.5 kB, 16 MB and c = 11.8.
FILE_BYTES = 177_000.0  # a file opened costs as much as reading this many bytes of the columns read
JOB_BYTES = 11_300_000.0  # a rewrite's fixed cost (one Spark job): the bytes it rewrites meanwhile
SPARK_WRITE_MULTIPLIER = 10.2  # a byte rewritten costs this many bytes read
QUERY_BYTES = 16_800_000.0  # a query's fixed cost (planning, listing, its job): the bytes read meanwhile


@runtime_checkable
class CostModel(Protocol):
    """Prices blocks by their row counts; a query's cost is the sum over the blocks it reads.
    ``job_cost`` is what any rewrite costs on top of its blocks, before the write multiplier.

    >>> from skipstone.layout import CostModel, RowsRead, SparkCost
    >>> isinstance(RowsRead(), CostModel), isinstance(SparkCost(bytes_per_row=8), CostModel)
    (True, True)
    """

    job_cost: float
    """What any rewrite costs on top of its blocks, before the write multiplier."""

    def block_costs(self, rows: np.ndarray) -> np.ndarray:
        """The price of reading each block, from its row count."""
        ...


def write_costs(model: CostModel, rows: np.ndarray) -> np.ndarray:
    """What rewriting blocks of ``rows`` costs before the write multiplier and the job: the
    model's ``write_costs`` if it has one, else its read prices."""
    priced = getattr(model, "write_costs", None)
    return priced(rows) if callable(priced) else model.block_costs(rows)


@dataclass(frozen=True)
class RowsRead:
    """The papers' cost: every row read costs 1, a rewrite costs c per row and nothing fixed.

    >>> import numpy as np
    >>> from skipstone.layout import RowsRead
    >>> RowsRead().block_costs(np.array([1000, 250]))
    array([1000.,  250.])
    """

    job_cost: float = 0.0

    def block_costs(self, rows: np.ndarray) -> np.ndarray:
        """Each block costs its rows."""
        return np.asarray(rows, dtype=np.float64)


@dataclass(frozen=True)
class TablePrices:
    """The prices a table measured on its machine (``t.calibrate()``, stored as the table's
    ``cost.*`` settings); None where it has none, and the library's calibration applies.

    >>> SparkCost(bytes_per_row=10).with_prices(TablePrices(file_bytes=64_000)).block_costs(np.array([100.0]))
    array([65000.])
    """

    file_bytes: float | None = None
    job_bytes: float | None = None
    write_multiplier: float | None = None
    query_bytes: float | None = None


@dataclass(frozen=True)
class SparkCost:
    """Bytes read, plus ``file_bytes`` per file opened; a block of n rows is
    ceil(n / ``rows_per_file``) files (a table splits blocks above its file size limit). A
    rewrite costs ``job_bytes`` on top of its blocks (before the write multiplier); a query
    costs ``query_bytes`` on top of its blocks, whatever the layout (``query_price``).

    ``bytes_per_row`` None means the table's own: a managed table measures it from its files
    when it plans (``with_bytes_per_row``); outside a table, give it. ``read_share`` is the share
    of a row's bytes a query reads (Parquet reads only the columns it projects; a managed table
    takes it from its workload log, ``with_read_share``); None reads whole rows. A rewrite reads
    and writes whole rows whatever the queries read. ``file_bytes``, ``job_bytes`` and
    ``query_bytes`` None mean the table's calibration when it has one (``with_prices``), else the
    library's (``FILE_BYTES``, ``JOB_BYTES``, ``QUERY_BYTES``); given ones are kept.

    >>> import numpy as np
    >>> from skipstone.layout import SparkCost
    >>> SparkCost(bytes_per_row=100, file_bytes=1e6).block_costs(np.array([1000]))   # 100 kB read + one file opened
    array([1100000.])
    >>> cost = SparkCost(bytes_per_row=100, file_bytes=1e6, read_share=0.1)   # queries read a tenth of each row
    >>> cost.block_costs(np.array([1000])), cost.write_costs(np.array([1000]))
    (array([1010000.]), array([100000.]))
    """

    bytes_per_row: float | None = None
    file_bytes: float | None = None
    rows_per_file: float = math.inf
    job_bytes: float | None = None
    read_share: float | None = None
    query_bytes: float | None = None

    def __post_init__(self) -> None:
        for name in ("bytes_per_row", "file_bytes", "rows_per_file", "job_bytes", "query_bytes"):
            value = getattr(self, name)
            if value is not None and not value >= 0:
                raise ValueError(f"SparkCost.{name} must be a non-negative number, got {value}")
        if self.read_share is not None and not 0 < self.read_share <= 1:
            raise ValueError(f"SparkCost.read_share must be in (0, 1], got {self.read_share}")

    @property
    def file_price(self) -> float:
        """What opening a file costs, in bytes: ``file_bytes``, or the library's calibration."""
        return FILE_BYTES if self.file_bytes is None else float(self.file_bytes)

    @property
    def job_cost(self) -> float:
        """The bytes one rewrite costs on top of its blocks: ``job_bytes``, or the library's calibration."""
        return JOB_BYTES if self.job_bytes is None else float(self.job_bytes)

    @property
    def query_cost(self) -> float:
        """The bytes any query costs on top of its blocks: ``query_bytes``, or the library's calibration."""
        return QUERY_BYTES if self.query_bytes is None else float(self.query_bytes)

    def with_bytes_per_row(self, bytes_per_row: float) -> SparkCost:
        """This model with the table's bytes per row, unless one was given."""
        return self if self.bytes_per_row is not None else replace(self, bytes_per_row=float(bytes_per_row))

    def with_read_share(self, read_share: float) -> SparkCost:
        """This model with the share of a row's bytes the table's queries read, unless one was given."""
        return self if self.read_share is not None else replace(self, read_share=float(read_share))

    def with_file_rows(self, rows_per_file: float) -> SparkCost:
        """This model with the table's file size limit in rows, unless one was given: a block
        of more rows is written as several files, each opened by a query that reads it."""
        return self if math.isfinite(self.rows_per_file) else replace(self, rows_per_file=float(rows_per_file))

    def with_prices(self, prices: TablePrices) -> SparkCost:
        """This model with the table's calibrated file, job and query prices where it was given none."""
        return replace(self, file_bytes=self.file_bytes if self.file_bytes is not None else prices.file_bytes,
                       job_bytes=self.job_bytes if self.job_bytes is not None else prices.job_bytes,
                       query_bytes=self.query_bytes if self.query_bytes is not None else prices.query_bytes)

    def block_costs(self, rows: np.ndarray) -> np.ndarray:
        """Each block costs its bytes (rows x ``bytes_per_row``) plus its files' opening price."""
        if self.bytes_per_row is None:
            raise ValueError("SparkCost.bytes_per_row is not known: give it, or optimize a managed table, "
                             "which measures it from the table's files")
        rows = np.asarray(rows, dtype=np.float64)
        share = 1.0 if self.read_share is None else self.read_share
        return rows * (self.bytes_per_row * share) + self._files(rows) * self.file_price

    def write_costs(self, rows: np.ndarray) -> np.ndarray:
        """A rewrite is priced by its bytes, whole rows: the write multiplier was measured per byte rewritten."""
        if self.bytes_per_row is None:
            raise ValueError("SparkCost.bytes_per_row is not known: give it, or optimize a managed table, "
                             "which measures it from the table's files")
        return np.asarray(rows, dtype=np.float64) * self.bytes_per_row

    def _files(self, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.float64)
        return np.where(rows > 0, np.ceil(rows / self.rows_per_file) if math.isfinite(self.rows_per_file) else 1.0, 0.0)


def query_price(model: CostModel) -> float:
    """What any query costs whatever blocks it reads (the model's ``query_cost``; 0 for a model
    without one, as ``RowsRead``): a workload's total counts it; no decision does, since no layout
    saves it (a gain, a break-even and ``AutoColumns``' margin weigh what a layout can change).

    >>> query_price(RowsRead()), query_price(SparkCost(bytes_per_row=8, query_bytes=5e6))
    (0.0, 5000000.0)
    """
    return float(getattr(model, "query_cost", 0.0))


def write_multiplier_or_default(write_multiplier: float | None) -> float:
    """A policy's write multiplier: its own, or (None) the library's calibration."""
    return SPARK_WRITE_MULTIPLIER if write_multiplier is None else float(write_multiplier)


def with_table_prices(model: CostModel, prices: TablePrices) -> CostModel:
    """The model with a table's calibrated prices where it prices files and jobs and was given none."""
    adapt = getattr(model, "with_prices", None)
    return adapt(prices) if callable(adapt) else model


def model_to_json(model: CostModel) -> dict[str, Any] | None:
    """The built-in models as JSON (for a table's history, so that what a rewrite realized is
    priced as it was predicted); None for a model of your own.

    >>> model_to_json(SparkCost(bytes_per_row=8))
    {'kind': 'SparkCost', 'bytes_per_row': 8, 'file_bytes': 177000.0, 'rows_per_file': inf, 'job_bytes': 11300000.0, 'read_share': None, 'query_bytes': 16800000.0}
    >>> model_from_json(model_to_json(RowsRead()))
    RowsRead(job_cost=0.0)
    """
    if isinstance(model, SparkCost):
        return {"kind": "SparkCost", "bytes_per_row": model.bytes_per_row, "file_bytes": model.file_price,
                "rows_per_file": model.rows_per_file, "job_bytes": model.job_cost, "read_share": model.read_share,
                "query_bytes": model.query_cost}
    if isinstance(model, RowsRead):
        return {"kind": "RowsRead", "job_cost": model.job_cost}
    return None


def model_from_json(d: Mapping[str, Any]) -> CostModel | None:
    """``model_to_json``'s model again; None for a kind it does not know. A record written before
    models priced a query's fixed part has no ``query_bytes``: the library's then (it moves no gain)."""
    if d.get("kind") == "SparkCost":
        return SparkCost(d.get("bytes_per_row"), float(d["file_bytes"]), float(d["rows_per_file"]), float(d["job_bytes"]),
                         d.get("read_share"), d.get("query_bytes"))
    if d.get("kind") == "RowsRead":
        return RowsRead(float(d["job_cost"]))
    return None


def rewrite_cost(model: CostModel, rows: np.ndarray, write_multiplier: float) -> float:
    """c x (the rewritten blocks' price + the model's fixed cost of a rewrite); nothing when
    nothing is rewritten."""
    rows = np.asarray(rows, dtype=np.float64)
    if not rows.size:
        return 0.0
    return float(write_multiplier * (write_costs(model, rows).sum() + getattr(model, "job_cost", 0.0)))


def most_any_rewrite_saves(model: CostModel, block_rows: np.ndarray, touches: np.ndarray,
                           write_multiplier: float) -> float:
    """An upper bound on benefit - cost of any rewrite, before its fixed job cost.

    A rewrite of blocks S saves the window at most what its queries pay on S today (they pay
    something, or nothing, after it) and costs c x the price of writing S: so no rewrite pays
    when the sum over the blocks of max(0, touches x read price - c x write price) is at most
    c x the job. ``touches``: how many window queries read each block. Policies use it to skip
    a search that cannot find a rewrite worth its Spark job.
    """
    rows = np.asarray(block_rows, dtype=np.float64)
    gains = np.asarray(touches, dtype=np.float64) * model.block_costs(rows) - write_multiplier * write_costs(model, rows)
    return float(np.maximum(gains, 0.0).sum())


def with_table_read_share(model: CostModel, read_share: float) -> CostModel:
    """The model with the share of a row's bytes a table's queries read, where it prices bytes and lacks one."""
    adapt = getattr(model, "with_read_share", None)
    return adapt(read_share) if callable(adapt) else model


def with_table_file_rows(model: CostModel, rows_per_file: float) -> CostModel:
    """The model with a table's file size limit in rows where it counts files and lacks one."""
    adapt = getattr(model, "with_file_rows", None)
    return adapt(rows_per_file) if callable(adapt) else model


def with_table_bytes(model: CostModel, bytes_per_row: float) -> CostModel:
    """The model with a table's measured bytes per row where it prices bytes and lacks one."""
    adapt = getattr(model, "with_bytes_per_row", None)
    return adapt(bytes_per_row) if callable(adapt) else model
