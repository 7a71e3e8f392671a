"""The `deltalake` package's Z-order as an outside peer: files and bytes its min/max file
statistics let a reader skip, for the same queries (Delta's data skipping, evaluated here on
the statistics delta-rs writes, since Spark here has no Delta reader)."""
from __future__ import annotations

import datetime as dt
import decimal
import time
from dataclasses import dataclass
from typing import Any, Mapping, Sequence


@dataclass(frozen=True)
class DeltaFile:
    size: int
    low: dict[str, Any]
    high: dict[str, Any]


def zordered_delta(source: str, path: str, columns: Sequence[str], target_bytes: int) -> tuple[list[DeltaFile], float]:
    """Writes ``source`` (Parquet) as a Delta table and Z-orders it; its files and the seconds it took."""
    import pyarrow as pa
    import pyarrow.dataset as ds
    from deltalake import DeltaTable, write_deltalake

    started = time.perf_counter()
    write_deltalake(path, ds.dataset(source, format="parquet").to_table())
    DeltaTable(path).optimize.z_order(list(columns), target_size=target_bytes)
    seconds = time.perf_counter() - started
    actions = pa.table(DeltaTable(path).get_add_actions(flatten=True))
    names = [n[len("min."):] for n in actions.column_names if n.startswith("min.")]
    rows = actions.to_pylist()
    files = [DeltaFile(int(r["size_bytes"]), {n: r.get(f"min.{n}") for n in names}, {n: r.get(f"max.{n}") for n in names})
             for r in rows]
    return files, seconds


def may_match(tree: Mapping[str, Any], f: DeltaFile) -> bool:
    """False only when the file's min/max prove no row matches (NOT is never used to skip)."""
    if "and" in tree:
        return all(may_match(c, f) for c in tree["and"])
    if "or" in tree:
        return any(may_match(c, f) for c in tree["or"])
    if "not" in tree:
        return True
    column, op, value = tree["column"], tree["op"].upper(), tree["value"]
    low, high = f.low.get(column), f.high.get(column)
    if low is None or high is None:
        return True

    def inside(v: Any) -> bool:
        v = _like(v, low)
        return low <= v <= high

    if op == "=":
        return inside(value)
    if op == "IN":
        return any(inside(v) for v in value)
    if op == "BETWEEN":
        a, b = _like(value[0], low), _like(value[1], low)
        return not (high < a or low > b)
    v = _like(value, low)
    return {"<": low < v, "<=": low <= v, ">": high > v, ">=": high >= v, "!=": not (low == high == v)}[op]


def _like(value: Any, example: Any) -> Any:
    """The literal as the statistics' type (dates, decimals, numbers)."""
    if isinstance(example, dt.datetime):
        return dt.datetime.fromisoformat(value) if isinstance(value, str) else value
    if isinstance(example, dt.date):
        return dt.date.fromisoformat(value) if isinstance(value, str) else value
    if isinstance(example, decimal.Decimal):
        return decimal.Decimal(str(value))
    return value
