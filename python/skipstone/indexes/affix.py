"""What Prefix and Suffix share: distinct string ends of a fixed length per file."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping

from skipstone.errors import SkipstoneError
from skipstone.indexes.base import IndexType


@dataclass(frozen=True)
class AffixIndex(IndexType):
    """Sorted distinct ends (``cut`` of each value) of one string column, and its NULL count.

    Subclasses name their ``kind``; the JVM cuts the values (``io.skipstone.indexing.AffixKinds``).
    """

    column: str
    length: int
    roles: ClassVar[tuple[str, ...]] = ("affixes", "nulls")

    def __post_init__(self) -> None:
        if isinstance(self.length, bool) or not isinstance(self.length, int) or self.length <= 0:
            raise SkipstoneError(
                f"{type(self).__name__}: length must be a positive number of characters, got {self.length!r}")

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def params(self) -> dict[str, str]:
        return {"length": str(self.length)}

    def describe(self) -> str:
        return f"{type(self).__name__}({self.column}, {self.length})"

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> AffixIndex:
        return cls(columns[0], int(params["length"]))
