"""MinMax: per file the smallest and largest value of a column, and its NULL count."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from skipstone.indexes.base import IndexType


@dataclass(frozen=True)
class MinMax(IndexType):
    """Per file the smallest and largest value of a column, and its NULL count.

    Indexes numbers, strings (without collation), booleans, dates and timestamps; of a
    VARIANT column only the NULL count (for ``IS [NOT] NULL``).
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
