"""Rows of every column kind a user has, for managed-table tests, and the checks they share."""
from __future__ import annotations

import datetime as dt
import decimal
import math
from typing import Any

import numpy as np

from skipstone.layout.schema import ColumnKind, LayoutData
from skipstone.layout.tree import PartitionTree

SCHEMA = ("i INT, l BIGINT, dec DECIMAL(10,2), x DOUBLE, d DATE, ts TIMESTAMP, s STRING, b BOOLEAN")
# Filters on the rows of mixed_rows that a table must answer as plain Spark does: ranges over
# several kinds, a boolean, and NaN and NULL.
MIXED_PREDICATES = (
    "i < -500",
    "d < DATE'2020-06-01' AND b",
    "x > 50 AND s > 's200'",
    "isnan(x) OR x IS NULL",
    "s IS NULL OR i BETWEEN 0 AND 10",
)


def mixed_rows(n: int, seed: int = 0) -> list[tuple[Any, ...]]:
    """n rows; x holds NaN, -0.0, 0.0 and NULL; ts differs below a second; s and b hold NULLs."""
    rng = np.random.default_rng(seed)
    base = dt.datetime(2024, 3, 1, tzinfo=dt.timezone.utc)
    rows = []
    for k in range(n):
        x: float | None = float(rng.normal() * 100)
        if k % 17 == 0:
            x = math.nan
        elif k % 19 == 0:
            x = -0.0
        elif k % 23 == 0:
            x = 0.0
        elif k % 29 == 0:
            x = None
        rows.append((
            int(rng.integers(-1000, 1000)),
            int(k) * 1_000_003,
            decimal.Decimal(int(rng.integers(-10**6, 10**6))) / 100,
            x,
            dt.date(2020, 1, 1) + dt.timedelta(days=int(rng.integers(0, 1500))),
            # same day, different microseconds: a layout truncating to days could not tell them apart
            base + dt.timedelta(microseconds=int(rng.integers(0, 86_400_000_000 // 8))),
            None if k % 31 == 0 else f"s{int(rng.integers(0, 300)):03d}",
            None if k % 37 == 0 else bool(k % 3),
        ))
    return rows


def mixed_frame(spark: Any, n: int, seed: int = 0) -> Any:
    """The DataFrame of ``mixed_rows(n, seed)`` under SCHEMA."""
    return spark.createDataFrame(mixed_rows(n, seed), SCHEMA)


def as_multiset(df: Any) -> list[tuple[Any, ...]]:
    """All rows, comparable (NaN as a string), sorted: equal lists mean equal multisets."""
    def cell(v: Any) -> Any:
        return "NaN" if isinstance(v, float) and math.isnan(v) else v
    return sorted((tuple(cell(v) for v in r) for r in df.collect()), key=repr)


def unindexed(stats: Any) -> int:
    """Files a query read because they had no skipping metadata, over all its datasets."""
    return sum(d.files_unindexed for d in stats.per_dataset)


def encoded_rows_by_file(spark: Any, paths: list[str], tree: PartitionTree) -> dict[str, LayoutData]:
    """The rows of each file, encoded as the layout package encodes them (dictionary positions
    with bisect for strings and booleans), independently of the routing expression; one job."""
    from pyspark.sql import functions as F

    cols = []
    for c in tree.schema.columns:
        col = F.col(c.name)
        if c.kind is ColumnKind.DATE:
            col = F.unix_date(col)
        elif c.kind is ColumnKind.TIMESTAMP:
            col = F.unix_micros(col)
        elif c.kind is not ColumnKind.CATEGORICAL:
            col = col.cast("double")
        cols.append(col.alias(c.name))
    rows = spark.read.parquet(*paths).select(F.col("_metadata.file_path").alias("_file"), *cols).collect()
    by_file: dict[str, list[Any]] = {}
    for r in rows:
        by_file.setdefault(r[0], []).append(r[1:])
    return {path: _encoded(tree, by_file.get(path, [])) for path in _canonical(paths, by_file)}


def _canonical(paths: list[str], found: dict[str, Any]) -> list[str]:
    """Spark reports file paths as URIs; map each path given to the name Spark used."""
    def same(a: str, b: str) -> bool:
        return a.replace("file://", "file:") == b.replace("file://", "file:")
    return [next((f for f in found if same(f, p)), p) for p in paths]


def _encoded(tree: PartitionTree, rows: list[Any]) -> LayoutData:
    values = np.empty((len(rows), tree.schema.width))
    for j, c in enumerate(tree.schema.columns):
        for k, r in enumerate(rows):
            v = r[j]
            if v is None:
                values[k, j] = -math.inf
            elif c.kind is ColumnKind.CATEGORICAL:
                values[k, j] = c.encode_literal(v)
            else:
                values[k, j] = math.inf if math.isnan(float(v)) else float(v)
    return LayoutData(tree.schema, values)


def batch(spark, start: int, n: int):
    """Rows a = start .. start + n - 1 and b = a % 7: what the append and continuous tests write."""
    from pyspark.sql import functions as F

    return spark.range(start, start + n).select(F.col("id").alias("a"), (F.col("id") % 7).alias("b"))
