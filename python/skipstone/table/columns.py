"""How a Spark column becomes a layout column: its kind and its encoded value.

The layout algorithms see every value as one float (``skipstone.layout.schema``): numbers as
they are, dates as days, timestamps as microseconds (never truncated), strings and booleans
as their rank in the sample's sorted dictionary; NULL is -inf and NaN is +inf. Rows are routed
to blocks in the JVM with the same encoding (``io.skipstone.layout.LayoutEncoding``), so that a
block's rows are the rows its region describes.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from skipstone.errors import SkipstoneError
from skipstone.layout.schema import ColumnKind

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import DataType, StructType

_INTEGRAL = ("ByteType", "ShortType", "IntegerType", "LongType")
_FLOATING = ("FloatType", "DoubleType")


def column_kind(data_type: DataType) -> ColumnKind | None:
    """The layout kind of a Spark type, None when a layout cannot order it (arrays, maps, binary...)."""
    name = type(data_type).__name__
    if name in _INTEGRAL:
        return ColumnKind.INTEGER
    if name in _FLOATING or name == "DecimalType":
        return ColumnKind.NUMERIC
    if name == "DateType":
        return ColumnKind.DATE
    if name in ("TimestampType", "TimestampNTZType"):
        return ColumnKind.TIMESTAMP
    # collated strings order differently from Python's sort, which builds the dictionary
    if name == "BooleanType" or (name == "StringType" and getattr(data_type, "collation", "UTF8_BINARY") == "UTF8_BINARY"):
        return ColumnKind.CATEGORICAL
    return None


def layout_columns(schema: StructType, requested: tuple[str, ...] | None, table: str) -> dict[str, DataType]:
    """The layout columns with their Spark types: ``requested``, or every orderable column."""
    fields = {f.name: f.dataType for f in schema.fields}
    if requested is None:
        chosen = {n: t for n, t in fields.items() if column_kind(t) is not None}
        if not chosen:
            raise SkipstoneError(f"table {table} has no column a layout can order (numbers, dates, timestamps, strings, booleans)")
        return chosen
    out = {}
    for name in requested:
        if name not in fields:
            raise SkipstoneError(f"layout column '{name}' does not exist in table {table} (columns: {', '.join(fields)})")
        if column_kind(fields[name]) is None:
            raise SkipstoneError(f"layout column '{name}' of table {table} has type {fields[name].simpleString()}, "
                                 "which a layout cannot order")
        out[name] = fields[name]
    return out


def quoted_if_needed(name: str) -> str:
    """A top-level column's name as index definitions take it: a name with a dot or a backtick
    in backticks, so that `a.b` names the column and not field b of a struct a.

    >>> quoted_if_needed("x"), quoted_if_needed("a.b"), quoted_if_needed("o`k")
    ('x', '`a.b`', '`o``k`')
    """
    return f"`{name.replace('`', '``')}`" if "." in name or "`" in name else name


def _numeric(c: Column, data_type: DataType) -> Column:
    """The column as the number the encoding compares (NULL stays NULL)."""
    from pyspark.sql import functions as F

    name = type(data_type).__name__
    if name == "DateType":
        return F.unix_date(c)
    if name == "TimestampType":
        return F.unix_micros(c)
    if name == "TimestampNTZType":
        # NTZ values are wall-clock times, encoded as microseconds since the wall clock's epoch,
        # as the layout's literals are, from their fields, which Spark reads without a time zone.
        # Never through a cast to TIMESTAMP (timestamp_diff casts too), which reads the wall clock
        # in the session's time zone: a time the zone skips would move by the gap, and a table
        # created in one zone would be routed differently in another. The JVM's LayoutEncoding
        # encodes rows for routing the same way.
        return (F.unix_date(F.to_date(c)).cast("long") * 86_400_000_000
                + (F.hour(c) * 3600 + F.minute(c) * 60).cast("long") * 1_000_000
                + (F.date_part(F.lit("SECOND"), c) * 1_000_000).cast("long"))
    return c.cast("double")


def encoded(c: Column, data_type: DataType) -> Column:
    """The encoded float of a non-categorical column: NULL -> -inf, NaN -> +inf."""
    from pyspark.sql import functions as F

    value = _numeric(c, data_type).cast("double")
    if type(data_type).__name__ in _FLOATING:
        value = F.when(F.isnan(c), F.lit(math.inf)).otherwise(value)
    return F.when(c.isNull(), F.lit(-math.inf)).otherwise(value)
