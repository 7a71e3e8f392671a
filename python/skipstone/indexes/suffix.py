"""Suffix: per file the distinct last characters of a string column's values."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Mapping

from skipstone.indexes.affix import ROLES, affix_aggregates, check_length, check_string
from skipstone.indexes.base import IndexType

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import DataType


@dataclass(frozen=True)
class Suffix(IndexType):
    """Per file the distinct last ``length`` characters of a string column's values.

    Answers ``LIKE '%s'`` (and any pattern ending with literal characters), ``endswith``,
    ``=`` and ``IN``; values shorter than ``length`` are kept whole, which also answers
    ``<>``/``NOT IN`` for short constants. Smaller than a ValueList when values share suffixes
    (file extensions, e-mail domains).

    >>> from skipstone import Suffix
    >>> Suffix("email", 10).describe()
    'Suffix(email, 10)'
    """

    column: str
    length: int
    kind: ClassVar[str] = "suffix"
    roles: ClassVar[tuple[str, ...]] = ROLES

    def __post_init__(self) -> None:
        check_length("Suffix", self.length)

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def params(self) -> dict[str, str]:
        return {"length": str(self.length)}

    def describe(self) -> str:
        return f"Suffix({self.column}, {self.length})"

    def check_types(self, types: Mapping[str, DataType], dataset: str) -> None:
        check_string("Suffix", self.column, types, dataset)

    def aggregates(self, columns: Mapping[str, Column]) -> dict[str, Column]:
        from pyspark.sql import functions as F

        return affix_aggregates(columns[self.column], lambda c: F.substring(c, -self.length, self.length))

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> Suffix:
        return cls(columns[0], int(params["length"]))
