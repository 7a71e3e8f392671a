"""BloomFilter: per file a bloom filter of a column's values."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping

from skipstone.indexes.base import IndexType
from skipstone.indexes.setting_checks import positive, probability


@dataclass(frozen=True)
class BloomFilter(IndexType):
    """Per file a bloom filter of a column's non-NULL values (and its NULL count).

    Answers ``=``, ``<=>`` and ``IN`` (long lists too), with false positives at rate about
    ``fpp`` when a file holds up to ``expected_items`` distinct values. The filter's size is
    fixed by those two settings (about 1.2 bytes per expected item at ``fpp=0.01``), whatever
    the file holds. Best for high-cardinality columns looked up by value (ids, emails).

    >>> from skipstone import BloomFilter
    >>> BloomFilter("user_id", fpp=0.001, expected_items=50_000).describe()
    'BloomFilter(user_id, fpp=0.001, expected_items=50000)'
    """

    column: str
    fpp: float = 0.01
    expected_items: int = 10_000
    kind: ClassVar[str] = "bloomfilter"
    roles: ClassVar[tuple[str, ...]] = ("bloom", "nulls")

    def __post_init__(self) -> None:
        probability("BloomFilter", "fpp", self.fpp)
        positive("BloomFilter", "expected_items", self.expected_items)

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def params(self) -> dict[str, str]:
        return {"fpp": repr(self.fpp), "expected_items": str(self.expected_items)}

    def describe(self) -> str:
        return f"BloomFilter({self.column}, fpp={self.fpp}, expected_items={self.expected_items})"

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> BloomFilter:
        return cls(columns[0], float(params["fpp"]), int(params["expected_items"]))
