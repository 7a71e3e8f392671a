"""Hybrid: per file a value list when it is short, a bloom filter otherwise."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping

from skipstone.indexes.base import IndexType
from skipstone.indexes.setting_checks import positive, probability


@dataclass(frozen=True)
class Hybrid(IndexType):
    """Per file the distinct values of a column up to ``threshold`` of them, else a bloom filter.

    Files with few distinct values get a ValueList's exact answers (any predicate on the
    column); the others a bloom filter sized for their own distinct count at rate ``fpp``
    (``=``, ``<=>``, ``IN``). The paper behind Skipstone found 10,000 a good default threshold.

    >>> from skipstone import Hybrid
    >>> Hybrid("db_name").describe()
    'Hybrid(db_name, threshold=10000, fpp=0.01)'
    """

    column: str
    threshold: int = 10_000
    fpp: float = 0.01
    kind: ClassVar[str] = "hybrid"
    roles: ClassVar[tuple[str, ...]] = ("values", "bloom", "nulls")

    def __post_init__(self) -> None:
        positive("Hybrid", "threshold", self.threshold)
        probability("Hybrid", "fpp", self.fpp)

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def params(self) -> dict[str, str]:
        return {"threshold": str(self.threshold), "fpp": repr(self.fpp)}

    def describe(self) -> str:
        return f"Hybrid({self.column}, threshold={self.threshold}, fpp={self.fpp})"

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> Hybrid:
        return cls(columns[0], int(params["threshold"]), float(params["fpp"]))
