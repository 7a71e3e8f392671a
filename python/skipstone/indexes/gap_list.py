"""GapList: per file min, max and the widest gaps between consecutive distinct values."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping

from skipstone.indexes.base import IndexType
from skipstone.indexes.setting_checks import positive


@dataclass(frozen=True)
class GapList(IndexType):
    """Per file the min, max, NULL count and the ``gaps`` widest gaps of a column.

    A gap is an open interval between two consecutive distinct values of the file: no row
    falls into it. Answers everything MinMax does, and also skips files whose data has holes
    where a query looks: ranges (``BETWEEN``, ``x > a AND x < b``) and ``=``/``IN`` that fall
    inside a gap. Collecting it sorts each file's distinct values once. Indexes numbers, dates
    and timestamps.

    >>> from skipstone import GapList
    >>> GapList("price", gaps=5).describe()
    'GapList(price, gaps=5)'
    """

    column: str
    gaps: int = 10
    kind: ClassVar[str] = "gaplist"
    roles: ClassVar[tuple[str, ...]] = ("min", "max", "nulls", "gaps")

    def __post_init__(self) -> None:
        positive("GapList", "gaps", self.gaps)

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def params(self) -> dict[str, str]:
        return {"gaps": str(self.gaps)}

    def describe(self) -> str:
        return f"GapList({self.column}, gaps={self.gaps})"

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> GapList:
        return cls(columns[0], int(params["gaps"]))

