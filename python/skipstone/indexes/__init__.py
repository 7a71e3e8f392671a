"""Index types; each kind lives in its own module and registers itself by subclassing IndexType."""
from __future__ import annotations

from skipstone.indexes.base import IndexType
from skipstone.indexes.minmax import MinMax

__all__ = ["IndexType", "MinMax"]
