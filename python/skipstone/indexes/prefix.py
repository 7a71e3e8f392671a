"""Prefix: per file the distinct first characters of a string column's values."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Mapping

from skipstone.indexes.affix import ROLES, affix_aggregates, check_length, check_string
from skipstone.indexes.base import IndexType

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import DataType


@dataclass(frozen=True)
class Prefix(IndexType):
    """Per file the distinct first ``length`` characters of a string column's values.

    Answers ``LIKE 'p%'`` (and any pattern starting with literal characters), ``startswith``,
    ``=`` and ``IN``; values shorter than ``length`` are kept whole, which also answers
    ``<>``/``NOT IN`` for short constants. Smaller than a ValueList when values share prefixes
    (paths, URLs, hierarchical names).

    >>> from skipstone import Prefix
    >>> Prefix("url", 12).describe()
    'Prefix(url, 12)'
    """

    column: str
    length: int
    kind: ClassVar[str] = "prefix"
    roles: ClassVar[tuple[str, ...]] = ROLES

    def __post_init__(self) -> None:
        check_length("Prefix", self.length)

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def params(self) -> dict[str, str]:
        return {"length": str(self.length)}

    def describe(self) -> str:
        return f"Prefix({self.column}, {self.length})"

    def check_types(self, types: Mapping[str, DataType], dataset: str) -> None:
        check_string("Prefix", self.column, types, dataset)

    def aggregates(self, columns: Mapping[str, Column]) -> dict[str, Column]:
        from pyspark.sql import functions as F

        return affix_aggregates(columns[self.column], lambda c: F.substring(c, 1, self.length))

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> Prefix:
        return cls(columns[0], int(params["length"]))
