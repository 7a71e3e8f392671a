"""Skipstone: Spark SQL reads less data.

>>> import skipstone
>>> from skipstone import Skipstone, MinMax
>>> from pyspark.sql import SparkSession
>>> spark = skipstone.configure(SparkSession.builder.master("local[2]")).getOrCreate()  # doctest: +SKIP
>>> Skipstone.for_path(spark, "/data/weather").build(MinMax("temp"), MinMax("ts"))      # doctest: +SKIP
"""
from __future__ import annotations

import logging

from skipstone.dataset import Skipstone
from skipstone.errors import SkipstoneError
from skipstone.indexes import (
    BloomFilter, Formatted, GapList, GeoBox, Hybrid, IndexType, Metric, MetricDist, MinMax, Prefix, Role, Rule,
    RuleIndex, SqlText, Suffix, UdfMapping, ValueList, geo_minmax_mapping,
)
from skipstone.jar import jar_path
from skipstone.session import EXTENSION_CLASS as _EXTENSION_CLASS
from skipstone.session import configure
from skipstone.stats import DatasetStats, QueryStats, last_query_stats
from skipstone.table import AppendResult, ManagedTable, OptimizeResult

# A library logs, the application decides where to: without a handler of its own the records of
# the "skipstone" loggers go nowhere (not to stderr through logging's last resort). docs/logging.md
logging.getLogger("skipstone").addHandler(logging.NullHandler())

__all__ = [
    "EXTENSION_CLASS",
    "AppendResult",
    "BloomFilter",
    "DatasetStats",
    "Formatted",
    "GapList",
    "GeoBox",
    "Hybrid",
    "IndexType",
    "ManagedTable",
    "Metric",
    "MetricDist",
    "MinMax",
    "OptimizeResult",
    "Prefix",
    "QueryStats",
    "Role",
    "Rule",
    "RuleIndex",
    "Skipstone",
    "SkipstoneError",
    "SqlText",
    "Suffix",
    "UdfMapping",
    "ValueList",
    "configure",
    "geo_minmax_mapping",
    "jar_path",
    "last_query_stats",
]
__version__ = "0.1.0"

EXTENSION_CLASS: str = _EXTENSION_CLASS
"""The class to name in ``spark.sql.extensions`` (``skipstone.configure`` adds it for you).

>>> import skipstone
>>> skipstone.EXTENSION_CLASS
'io.skipstone.SkipstoneExtension'
"""
