"""Collecting per-file metadata: one Spark job for all indexes of a build."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from skipstone.errors import SkipstoneError
from skipstone.indexes import IndexType

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructType

BASE_COLUMNS = ("path", "size", "mtime", "num_rows")


def metadata_column(position: int, index: IndexType, role: str) -> str:
    """Name of a role's column in the metadata table; the position keeps names unique."""
    return f"{index.kind}_{position}_{role}"


def resolve_columns(schema: StructType, names: Sequence[str], dataset: str) -> dict[str, DataType]:
    """Types of the (possibly nested, dotted) columns, or an error naming the missing one."""
    from pyspark.sql.types import StructType as Struct

    types: dict[str, DataType] = {}
    for name in names:
        fields, data_type = schema, None
        for part in name.split("."):
            match = [f for f in fields.fields if f.name.lower() == part.lower()] if isinstance(fields, Struct) else []
            if not match:
                available = ", ".join(schema.fieldNames())
                raise SkipstoneError(f"column '{name}' does not exist in dataset {dataset} (columns: {available})")
            data_type = match[0].dataType
            fields = data_type
        types[name] = data_type  # type: ignore[assignment]
    return types


def column_expression(name: str) -> Column:
    from pyspark.sql import functions as F

    return F.col(".".join(f"`{part}`" for part in name.split(".")))


def canonical_path(path: Column) -> Column:
    """The JVM's canonical spelling of a file URI: ``file:///a`` and ``file:/a`` are one file."""
    from pyspark.sql import functions as F

    return F.regexp_replace(path, r"^([A-Za-z][A-Za-z0-9+.\-]*):///", "$1:/")


def collect(data: DataFrame, indexes: Sequence[IndexType]) -> DataFrame:
    """One row per data file: path, size, mtime, num_rows and every index's roles."""
    from pyspark.sql import functions as F

    names = sorted({c for ix in indexes for c in ix.columns})
    columns = {n: column_expression(n) for n in names}
    aggregates = [F.count(F.lit(1)).alias("num_rows")]
    for position, index in enumerate(indexes):
        for role, expression in index.aggregates(columns).items():
            aggregates.append(expression.alias(metadata_column(position, index, role)))
    file = F.col("_metadata")
    summary = data.groupBy(
        canonical_path(file.file_path).alias("path"),
        file.file_size.alias("size"),
        F.unix_millis(file.file_modification_time).alias("mtime"),
    ).agg(*aggregates)
    from skipstone.per_file import collect_per_file

    computed = collect_per_file(data, indexes)
    return summary if computed is None else summary.join(computed, "path", "left")
