"""Index types; each kind lives in its own module and registers itself by subclassing IndexType."""
from __future__ import annotations

from skipstone.indexes.base import IndexType
from skipstone.indexes.bloom_filter import BloomFilter
from skipstone.indexes.gap_list import GapList
from skipstone.indexes.hybrid import Hybrid
from skipstone.indexes.minmax import MinMax
from skipstone.indexes.prefix import Prefix
from skipstone.indexes.suffix import Suffix
from skipstone.indexes.value_list import ValueList

__all__ = ["BloomFilter", "GapList", "Hybrid", "IndexType", "MinMax", "Prefix", "Suffix", "ValueList"]
