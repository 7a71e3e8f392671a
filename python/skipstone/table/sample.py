"""The one thing that reaches the driver: a uniform sample of the layout columns, encoded."""
from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from skipstone.layout.schema import Column as LayoutColumn
from skipstone.layout.schema import ColumnKind, LayoutData, Schema
from skipstone.per_file import column_of
from skipstone.table.columns import column_kind, encoded

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType


def draw_sample(df: DataFrame, columns: Mapping[str, DataType], total_rows: int, rows: int, seed: int = 0) -> LayoutData:
    """About ``rows`` rows of ``df`` (all if it has fewer), encoded for the layout: numbers,
    dates and timestamps are encoded by Spark; strings and booleans arrive as values and become
    ranks in the sample's sorted dictionary."""
    kinds = {name: column_kind(t) for name, t in columns.items()}
    selected = df.select([_sampled(column_of([name]), t, kinds[name]).alias(f"c{i}")
                          for i, (name, t) in enumerate(columns.items())])
    fraction = min(1.0, 1.2 * rows / max(total_rows, 1))
    if fraction < 1.0:
        selected = selected.sample(fraction=fraction, seed=seed)
    table = selected.toArrow()
    if table.num_rows > rows:  # the Bernoulli sample overshoots on purpose; trim uniformly
        keep = np.sort(np.random.default_rng(seed).choice(table.num_rows, size=rows, replace=False))
        table = table.take(keep)
    schema_columns, values = [], []
    for i, (name, kind) in enumerate(kinds.items()):
        raw = table.column(f"c{i}")
        if kind is ColumnKind.CATEGORICAL:
            column, ranks = _dictionary(name, raw.to_pylist(), strings=_is_string(columns[name]))
            values.append(ranks)
        else:
            column = LayoutColumn(name, kind)  # type: ignore[arg-type]
            values.append(raw.to_numpy(zero_copy_only=False).astype(np.float64))
        schema_columns.append(column)
    matrix = np.column_stack(values) if values and table.num_rows else np.empty((table.num_rows, len(values)))
    return LayoutData(Schema(tuple(schema_columns)), matrix)


def _sampled(c: Column, data_type: DataType, kind: ColumnKind | None) -> Column:
    """What the sample holds of a column: strings as their UTF-8 bytes, since Spark strings may
    hold bytes that are not valid UTF-8 (written by other tools), which Python cannot decode."""
    if kind is not ColumnKind.CATEGORICAL:
        return encoded(c, data_type)
    return c.cast("binary") if _is_string(data_type) else c


def _is_string(data_type: DataType) -> bool:
    return type(data_type).__name__ == "StringType"


def _dictionary(name: str, items: list[Any], strings: bool) -> tuple[LayoutColumn, np.ndarray]:
    """The column's sorted dictionary and each sampled value's encoded rank.

    Strings arrive as bytes, and bytes order as Spark orders strings (unsigned, byte by byte;
    for valid UTF-8 that is also Python's order of the decoded strings). A value that is not
    valid UTF-8 cannot be a category, since routing compares rows with categories as Spark
    string literals; it is left out of the dictionary and encoded half-way between the ranks
    around it, as every value missing from the dictionary is, which is also where routing puts
    its rows (`io.skipstone.layout.LayoutEncoding.atMost`).
    """
    present = sorted({v for v in items if v is not None})
    keys = [v for v in present if _decodable(v)] if strings else present
    categories = [v.decode("utf-8") for v in keys] if strings else keys
    rank = {v: float(r) for r, v in enumerate(keys)}

    def encoded_rank(v: Any) -> float:
        if v is None:
            return -np.inf
        known = rank.get(v)
        return known if known is not None else bisect.bisect_left(keys, v) - 0.5

    return LayoutColumn(name, ColumnKind.CATEGORICAL, tuple(categories)), \
        np.array([encoded_rank(v) for v in items], dtype=np.float64)


def _decodable(v: bytes) -> bool:
    try:
        v.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
