"""The one thing that reaches the driver: a uniform sample of the layout columns, encoded.

The JVM draws it (``io.skipstone.layout.builders.LayoutSample``), so that a session without
Python samples a table as a pyspark session does: Spark's Bernoulli sample, trimmed uniformly;
numbers, dates and timestamps encoded by Spark; strings (as their UTF-8 bytes) and booleans as
ranks in the sample's sorted dictionary.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from skipstone.layout.schema import LayoutData
from skipstone.session import java_call
from skipstone.table.jvm_layout import builders, from_jvm

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def draw_sample(df: DataFrame, columns: Iterable[str], total_rows: int, rows: int, seed: int = 0) -> LayoutData:
    """About ``rows`` rows of the layout ``columns`` of ``df`` (all if it has fewer), encoded;
    ``total_rows`` is how many rows ``df`` has (it sets the fraction Spark samples)."""
    drawn = java_call(builders(df.sparkSession).drawSample, df._jdf, list(columns), int(total_rows), int(rows), int(seed))
    return from_jvm(drawn)
