"""What Prefix and Suffix share: distinct string ends of a fixed length per file."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Mapping

from skipstone.errors import SkipstoneError
from skipstone.indexes.column_types import STRING, require

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import DataType

ROLES = ("affixes", "nulls")


def check_length(kind: str, length: int) -> None:
    if isinstance(length, bool) or not isinstance(length, int) or length <= 0:
        raise SkipstoneError(f"{kind}: length must be a positive number of characters, got {length!r}")


def check_string(kind: str, column: str, types: Mapping[str, DataType], dataset: str) -> None:
    require(kind, column, types[column], STRING, "a string (without collation)", dataset)


def affix_aggregates(column: Column, cut: Callable[[Column], Column]) -> dict[str, Column]:
    """Sorted distinct ends (``cut`` of each value) and the NULL count."""
    from pyspark.sql import functions as F

    return {
        "affixes": F.array_sort(F.collect_set(cut(column))),
        "nulls": F.count_if(column.isNull()).cast("long"),
    }
