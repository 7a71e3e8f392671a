"""Index types; each kind lives in its own module and registers itself by subclassing IndexType."""
from __future__ import annotations

from skipstone.indexes.base import IndexType
from skipstone.indexes.bloom_filter import BloomFilter
from skipstone.indexes.defined import RuleIndex
from skipstone.indexes.formatted import Formatted
from skipstone.indexes.gap_list import GapList
from skipstone.indexes.geo_mappings import geo_minmax_mapping
from skipstone.indexes.geobox import GeoBox
from skipstone.indexes.hybrid import Hybrid
from skipstone.indexes.mapping import UdfMapping
from skipstone.indexes.metricdist import Metric, MetricDist, SqlText
from skipstone.indexes.minmax import MinMax
from skipstone.indexes.prefix import Prefix
from skipstone.indexes.rules import Role, Rule
from skipstone.indexes.suffix import Suffix
from skipstone.indexes.value_list import ValueList

__all__ = [
    "BloomFilter", "Formatted", "GapList", "GeoBox", "Hybrid", "IndexType", "Metric", "MetricDist", "MinMax",
    "Prefix", "Role", "Rule", "RuleIndex", "SqlText", "Suffix", "UdfMapping", "ValueList", "geo_minmax_mapping",
]
