"""Index types; each kind lives in its own module and registers itself by subclassing IndexType."""
from __future__ import annotations

from skipstone.indexes.base import IndexType
from skipstone.indexes.defined import RuleIndex
from skipstone.indexes.formatted import Formatted
from skipstone.indexes.geo_mappings import geo_minmax_mapping
from skipstone.indexes.geobox import GeoBox
from skipstone.indexes.mapping import UdfMapping
from skipstone.indexes.metricdist import Metric, MetricDist, SqlText
from skipstone.indexes.minmax import MinMax
from skipstone.indexes.rules import Role, Rule

__all__ = [
    "Formatted", "GeoBox", "IndexType", "Metric", "MetricDist", "MinMax", "Role", "Rule", "RuleIndex",
    "SqlText", "UdfMapping", "geo_minmax_mapping",
]
