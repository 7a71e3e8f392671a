"""Which columns of a table a layout orders, and how index definitions name them.

The layout algorithms see every value as one float (``skipstone.layout.schema``): numbers as
they are, dates as days, timestamps as microseconds (never truncated), strings and booleans
as their rank in the sample's sorted dictionary; NULL is -inf and NaN is +inf. The JVM owns
that encoding (``io.skipstone.layout.LayoutEncoding``): it gives each Spark type its layout kind,
encodes the sample and routes rows to blocks, so that a block's rows are the rows its region
describes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from skipstone.errors import SkipstoneError
from skipstone.table.jvm_layout import layout_kinds

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import DataType, StructType


def layout_columns(spark: SparkSession, schema: StructType, table: str) -> dict[str, DataType]:
    """Every column a layout can order, with its Spark type (of a kind
    ``io.skipstone.layout.LayoutEncoding.kindOf`` gives, the encoding's one owner). Which columns a
    user's names mean is the JVM's to decide (``NewTable``, ``io.skipstone.metadata.ColumnPath``)."""
    kinds = layout_kinds(spark, schema)
    chosen = {f.name: f.dataType for f in schema.fields if kinds[f.name] is not None}
    if not chosen:
        raise SkipstoneError(f"table {table} has no column a layout can order (numbers, dates, timestamps, strings, booleans)")
    return chosen


def quoted_if_needed(name: str) -> str:
    """A top-level column's name as index definitions take it: a name with a dot or a backtick
    in backticks, so that `a.b` names the column and not field b of a struct a. The JVM's
    ``io.skipstone.metadata.ColumnPath.definitionName`` writes the same for the tables it creates;
    this one stays while ``create.py`` names its own MinMax requests (a Python call per name would
    buy nothing: the rule is SQL's quoting, not a decision about which column a name means).

    >>> quoted_if_needed("x"), quoted_if_needed("a.b"), quoted_if_needed("o`k")
    ('x', '`a.b`', '`o``k`')
    """
    return f"`{name.replace('`', '``')}`" if "." in name or "`" in name else name
