"""GapList: per file min, max and the widest gaps between consecutive distinct values."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Mapping

from skipstone.indexes.base import IndexType
from skipstone.indexes.column_types import ORDERED_RANGE, positive, require
from skipstone.indexes.minmax import min_max_nulls

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import DataType


@dataclass(frozen=True)
class GapList(IndexType):
    """Per file the min, max, NULL count and the ``gaps`` widest gaps of a column.

    A gap is an open interval between two consecutive distinct values of the file: no row
    falls into it. Answers everything MinMax does, and also skips files whose data has holes
    where a query looks: ranges (``BETWEEN``, ``x > a AND x < b``) and ``=``/``IN`` that fall
    inside a gap. Collecting it sorts each file's distinct values once.

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

    def check_types(self, types: Mapping[str, DataType], dataset: str) -> None:
        require("GapList", self.column, types[self.column], ORDERED_RANGE,
                "a number, date or timestamp", dataset)

    def aggregates(self, columns: Mapping[str, Column]) -> dict[str, Column]:
        c = columns[self.column]
        return {**min_max_nulls(c), "gaps": self._widest_gaps(c)}

    def _widest_gaps(self, c: Column) -> Column:
        from pyspark.sql import functions as F

        values = F.array_sort(F.collect_set(c))
        following = F.slice(values, 2, F.greatest(F.size(values) - 1, F.lit(0)))
        # try_subtract works for every accepted type (dates and timestamps give intervals); it is
        # NULL only on overflow, i.e. for the widest gaps of all.
        pairs = F.zip_with(values, following, lambda lo, hi: F.struct(
            F.try_subtract(hi, lo).alias("width"), lo.alias("lo"), hi.alias("hi")))
        # The last pair has no upper end; a gap up to NaN (which sorts above every double) holds
        # nothing a query can ask for. `CAST(.. AS STRING)` tells NaN apart for any type.
        real = F.filter(pairs, lambda p: p["hi"].isNotNull() & (p["hi"].cast("string") != F.lit("NaN")))
        widest = F.slice(F.array_sort(real, _wider_first), 1, self.gaps)
        return F.transform(widest, lambda p: F.struct(p["lo"].alias("lo"), p["hi"].alias("hi")))

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> GapList:
        return cls(columns[0], int(params["gaps"]))



def _wider_first(a: Column, b: Column) -> Column:
    from pyspark.sql import functions as F

    wa, wb = a["width"], b["width"]
    return (F.when(wa.isNull() & wb.isNull(), 0).when(wa.isNull(), -1).when(wb.isNull(), 1)
            .when(wa > wb, -1).when(wa < wb, 1).otherwise(0))
