"""What Prefix and Suffix share: distinct string ends of a fixed length per file."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Mapping

from skipstone.errors import SkipstoneError
from skipstone.indexes.base import IndexType
from skipstone.indexes.column_types import STRING, require

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import DataType


@dataclass(frozen=True)
class AffixIndex(IndexType):
    """Sorted distinct ends (``cut`` of each value) of one string column, and its NULL count.

    Subclasses say which end with ``cut`` and name their ``kind``.
    """

    column: str
    length: int
    roles: ClassVar[tuple[str, ...]] = ("affixes", "nulls")

    def __post_init__(self) -> None:
        if isinstance(self.length, bool) or not isinstance(self.length, int) or self.length <= 0:
            raise SkipstoneError(
                f"{type(self).__name__}: length must be a positive number of characters, got {self.length!r}")

    def cut(self, value: Column) -> Column:
        raise NotImplementedError

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def params(self) -> dict[str, str]:
        return {"length": str(self.length)}

    def describe(self) -> str:
        return f"{type(self).__name__}({self.column}, {self.length})"

    def check_types(self, types: Mapping[str, DataType], dataset: str) -> None:
        require(type(self).__name__, self.column, types[self.column], STRING, "a string (without collation)",
                dataset)

    def aggregates(self, columns: Mapping[str, Column]) -> dict[str, Column]:
        from pyspark.sql import functions as F

        column = columns[self.column]
        return {
            "affixes": F.array_sort(F.collect_set(self.cut(column))),
            "nulls": F.count_if(column.isNull()).cast("long"),
        }

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> AffixIndex:
        return cls(columns[0], int(params["length"]))
