"""MinMax: per file the smallest and largest value of a column, and its NULL count."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Mapping

from skipstone.errors import SkipstoneError
from skipstone.indexes.base import IndexType

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import DataType

_ORDERED_TYPES = (
    "ByteType", "ShortType", "IntegerType", "LongType", "FloatType", "DoubleType",
    "DecimalType", "DateType", "TimestampType", "TimestampNTZType", "StringType", "BooleanType",
)


@dataclass(frozen=True)
class MinMax(IndexType):
    """Per file the smallest and largest value of a column, and its NULL count.

    Answers ``=``, ``<``, ``<=``, ``>``, ``>=``, ``BETWEEN``, ``IN``, ``<=>``, ``IS [NOT] NULL``
    with the column on either side, under any AND/OR/NOT nesting. Works best when the data
    is clustered by the column (time-ordered events, sorted keys).

    >>> from skipstone import MinMax
    >>> MinMax("temp").describe()
    'MinMax(temp)'
    """

    column: str
    kind: ClassVar[str] = "minmax"
    roles: ClassVar[tuple[str, ...]] = ("min", "max", "nulls")

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def check_types(self, types: Mapping[str, DataType], dataset: str) -> None:
        data_type = types[self.column]
        if type(data_type).__name__ not in _ORDERED_TYPES or _is_collated(data_type):
            raise SkipstoneError(
                f"MinMax cannot index column '{self.column}' of dataset {dataset}: its type "
                f"{data_type.simpleString()} is not a number, string, boolean, date or timestamp"
            )

    def aggregates(self, columns: Mapping[str, Column]) -> dict[str, Column]:
        return min_max_nulls(columns[self.column])


def min_max_nulls(c: Column) -> dict[str, Column]:
    """The roles every range index starts from: smallest and largest value, NULL count."""
    from pyspark.sql import functions as F

    return {"min": F.min(c), "max": F.max(c), "nulls": F.count_if(c.isNull()).cast("long")}


def _is_collated(data_type: DataType) -> bool:
    # Strings with a non-binary collation order differently from their bytes.
    collation = getattr(data_type, "collation", None)
    return collation not in (None, "UTF8_BINARY")
