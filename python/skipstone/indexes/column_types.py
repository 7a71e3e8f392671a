"""Which column types an index kind accepts, checked before any data is read."""
from __future__ import annotations

from typing import TYPE_CHECKING

from skipstone.errors import SkipstoneError

if TYPE_CHECKING:
    from pyspark.sql.types import DataType

INTEGRAL = ("ByteType", "ShortType", "IntegerType", "LongType")
FLOATING = ("FloatType", "DoubleType")
NUMERIC = INTEGRAL + FLOATING + ("DecimalType",)
TEMPORAL = ("DateType", "TimestampType", "TimestampNTZType")
ORDERED_RANGE = NUMERIC + TEMPORAL
"""Types with a distance between values: what a gap between two of them can be measured in."""
HASHABLE = NUMERIC + TEMPORAL + ("StringType", "BooleanType", "BinaryType")
"""Types whose values can be listed distinctly and hashed consistently by the JVM."""
STRING = ("StringType",)


def type_name(data_type: DataType) -> str:
    return type(data_type).__name__


def is_collated(data_type: DataType) -> bool:
    """Strings with a non-binary collation compare differently from their bytes."""
    collation = getattr(data_type, "collation", None)
    return collation not in (None, "UTF8_BINARY")


def require(kind: str, column: str, data_type: DataType, allowed: tuple[str, ...], described: str,
            dataset: str) -> None:
    """Raise SkipstoneError naming the column and dataset if ``data_type`` is not allowed."""
    if type_name(data_type) not in allowed or is_collated(data_type):
        raise SkipstoneError(
            f"{kind} cannot index column '{column}' of dataset {dataset}: its type "
            f"{data_type.simpleString()} is not {described}"
        )


def probability(kind: str, name: str, value: float) -> None:
    """Raise SkipstoneError unless a rate setting (a false-positive probability) is in (0, 1)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise SkipstoneError(f"{kind}: {name} must be between 0 and 1, got {value!r}")


def positive(kind: str, name: str, value: float) -> None:
    """Raise SkipstoneError unless a size setting is a positive number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise SkipstoneError(f"{kind}: {name} must be a positive number, got {value!r}")
