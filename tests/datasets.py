"""Small datasets written file by file with pyarrow, so tests know exactly what each file holds."""
from __future__ import annotations

import datetime as dt
import decimal
import os

import pyarrow as pa
import pyarrow.parquet as pq

FILES = 10
ROWS = 100


def clustered_table(file: int) -> pa.Table:
    """File ``i`` holds k in [100i, 100i+99]; every other column follows k, except ``cat``.

    x = k/10 with NULLs in file 8 and NaN in file 9; n is NULL throughout file 5.
    """
    k = [file * ROWS + j for j in range(ROWS)]
    x: list[float | None] = [v / 10.0 for v in k]
    if file == 8:
        x = [None if j % 3 == 0 else v for j, v in enumerate(x)]
    if file == 9:
        x = [float("nan") if j % 4 == 0 else v for j, v in enumerate(x)]
    return pa.table({
        "k": pa.array(k, pa.int32()),
        "x": pa.array(x, pa.float64()),
        "s": pa.array([f"s{file:02d}-{j:03d}" for j in range(ROWS)]),
        "d": pa.array([dt.date(2024, 1, 1) + dt.timedelta(days=file * 10 + j % 10) for j in range(ROWS)]),
        "ts": pa.array([dt.datetime(2024, 1, 1) + dt.timedelta(hours=file, seconds=j) for j in range(ROWS)],
                       pa.timestamp("us", tz="UTC")),
        "dec": pa.array([decimal.Decimal(v) + decimal.Decimal("0.25") for v in k], pa.decimal128(10, 2)),
        "n": pa.array([None if file == 5 else v for v in k], pa.int64()),
        "cat": pa.array([f"c{j % 7}" for j in range(ROWS)]),
    })


def write_clustered(root: str, files: int = FILES) -> str:
    os.makedirs(root, exist_ok=True)
    for i in range(files):
        write_file(root, i, clustered_table(i))
    return root


def write_file(root: str, i: int, table: pa.Table) -> str:
    path = os.path.join(root, f"part-{i:05d}.parquet")
    pq.write_table(table, path)
    return path


def write_tables(root: str, tables: list[pa.Table]) -> str:
    """One file per table, in order: ``part-00000.parquet`` holds ``tables[0]``."""
    os.makedirs(root, exist_ok=True)
    for i, table in enumerate(tables):
        write_file(root, i, table)
    return root
