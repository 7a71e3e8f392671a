"""Checks of index settings made when an index is constructed.

Which column types a kind accepts is checked by the JVM build against the dataset's schema
(``io.skipstone.indexing.ColumnTypes``), before any data is read.
"""
from __future__ import annotations

from skipstone.errors import SkipstoneError

def probability(kind: str, name: str, value: float) -> None:
    """Raise SkipstoneError unless a rate setting (a false-positive probability) is in (0, 1)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise SkipstoneError(f"{kind}: {name} must be between 0 and 1, got {value!r}")


def positive(kind: str, name: str, value: float) -> None:
    """Raise SkipstoneError unless a size setting is a positive number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise SkipstoneError(f"{kind}: {name} must be a positive number, got {value!r}")
