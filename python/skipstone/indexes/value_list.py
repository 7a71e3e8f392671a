"""ValueList: per file the distinct values of a column."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping

from skipstone.indexes.base import IndexType
from skipstone.indexes.setting_checks import positive


@dataclass(frozen=True)
class ValueList(IndexType):
    """Per file the sorted distinct values of a column (and its NULL count).

    Files with more than ``max_size`` distinct values store NULL (unknown) and are always read.
    Answers any predicate on the column alone, exactly: ``=``, ``IN``, ``<>``, ``NOT IN``,
    ``LIKE``, ``StartsWith``/``EndsWith``/``Contains``, ranges, even functions of the column.
    Best for columns with few distinct values per file (status codes, tenants, categories).

    >>> from skipstone import ValueList
    >>> ValueList("country", max_size=500).describe()
    'ValueList(country, max_size=500)'
    """

    column: str
    max_size: int = 1000
    kind: ClassVar[str] = "valuelist"
    roles: ClassVar[tuple[str, ...]] = ("values", "nulls")

    def __post_init__(self) -> None:
        positive("ValueList", "max_size", self.max_size)

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def params(self) -> dict[str, str]:
        return {"max_size": str(self.max_size)}

    def describe(self) -> str:
        return f"ValueList({self.column}, max_size={self.max_size})"

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> ValueList:
        return cls(columns[0], int(params["max_size"]))
