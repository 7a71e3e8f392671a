"""The one thing that reaches the driver: a uniform sample of the layout columns, encoded."""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

import numpy as np

from skipstone.layout.schema import Column as LayoutColumn
from skipstone.layout.schema import ColumnKind, LayoutData, Schema
from skipstone.per_file import column_of
from skipstone.table.columns import column_kind, encoded

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import DataType


def draw_sample(df: DataFrame, columns: Mapping[str, DataType], total_rows: int, rows: int, seed: int = 0) -> LayoutData:
    """About ``rows`` rows of ``df`` (all if it has fewer), encoded for the layout: numbers,
    dates and timestamps are encoded by Spark; strings and booleans arrive as values and become
    ranks in the sample's sorted dictionary."""
    kinds = {name: column_kind(t) for name, t in columns.items()}
    selected = df.select([
        (column_of([name]) if kinds[name] is ColumnKind.CATEGORICAL else encoded(column_of([name]), t)).alias(f"c{i}")
        for i, (name, t) in enumerate(columns.items())
    ])
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
            items = raw.to_pylist()
            column = LayoutColumn(name, kind, tuple(sorted({v for v in items if v is not None})))
            rank = {v: float(r) for r, v in enumerate(column.categories)}
            values.append(np.array([-np.inf if v is None else rank[v] for v in items], dtype=np.float64))
        else:
            column = LayoutColumn(name, kind)  # type: ignore[arg-type]
            values.append(raw.to_numpy(zero_copy_only=False).astype(np.float64))
        schema_columns.append(column)
    matrix = np.column_stack(values) if values and table.num_rows else np.empty((table.num_rows, len(values)))
    return LayoutData(Schema(tuple(schema_columns)), matrix)
