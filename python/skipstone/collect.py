"""Collecting per-file metadata: one Spark job for all indexes of a build."""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from skipstone.indexes import IndexType

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

    from skipstone.columns import ResolvedColumn

BASE_COLUMNS = ("path", "size", "mtime", "fingerprint", "num_rows")


def metadata_column(position: int, index: IndexType, role: str) -> str:
    """Name of a role's column in the metadata table; the position keeps names unique."""
    return f"{index.kind}_{position}_{role}"


def canonical_path(path: Column) -> Column:
    """The JVM's canonical spelling of a file URI: ``file:///a`` and ``file:/a`` are one file."""
    from pyspark.sql import functions as F

    return F.regexp_replace(path, r"^([A-Za-z][A-Za-z0-9+.\-]*):///", "$1:/")


def collect(data: DataFrame, files: DataFrame, indexes: Sequence[IndexType],
            columns: Mapping[str, ResolvedColumn]) -> DataFrame:
    """One row per file of ``files`` (the listing ``data`` scans): its identity, num_rows and
    every index's roles.

    A listed file that yields no row has ``num_rows`` 0 and NULL roles: queries skip it.
    """
    from pyspark.sql import functions as F

    expressions = {name: column.expression() for name, column in columns.items()}
    aggregates = [F.count(F.lit(1)).alias("num_rows")]
    for position, index in enumerate(indexes):
        for role, expression in index.aggregates(expressions).items():
            aggregates.append(expression.alias(metadata_column(position, index, role)))
    summary = data.groupBy(canonical_path(F.col("_metadata.file_path")).alias("path")).agg(*aggregates)
    from skipstone.per_file import collect_per_file

    computed = collect_per_file(data, indexes, expressions)
    per_file = summary if computed is None else summary.join(computed, "path", "left")
    return (files.join(per_file, "path", "left")
            .withColumn("num_rows", F.coalesce(F.col("num_rows"), F.lit(0).cast("long"))))
