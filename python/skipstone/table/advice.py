"""A managed table's index advice as a DataFrame: its logged workload, its indexes and the distinct
counts of the columns where ValueList and BloomFilter compete, put through
``skipstone.indexes.advice`` (the rules live there, without Spark)."""
from __future__ import annotations

import json
import warnings
from typing import TYPE_CHECKING, Any

from skipstone.indexes.advice import advise, column_uses, needs_distinct_count

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

SCHEMA = ("column string, queries long, range_queries long, equality_queries long, files_read_share double, "
          "indexes array<string>, suggestion string, reason string")


def index_advice(spark: SparkSession, workload: DataFrame, indexes: DataFrame, rows: DataFrame) -> DataFrame:
    """One row per column the logged queries filter on, most filtered first (``Advice``'s fields)."""
    logged = []
    for r in workload.where("predicate IS NOT NULL").select("predicate", "files_read", "files_total").collect():
        try:
            logged.append((json.loads(r.predicate), r.files_read / r.files_total if r.files_total else 1.0))
        except (ValueError, TypeError, KeyError) as e:
            warnings.warn(f"Skipstone: ignoring logged predicate {r.predicate}: {e}", stacklevel=2)
    uses = column_uses(logged)
    described = [(r["index"], r["kind"], tuple(r["columns"])) for r in indexes.collect()]
    counted = [u.column for u in uses if needs_distinct_count(u, described) and _readable(rows, u.column)]
    distinct = _distinct_counts(rows, counted)
    advice = advise(uses, described, distinct)
    return spark.createDataFrame([(a.column, a.queries, a.range_queries, a.equality_queries, a.files_read_share,
                                   list(a.indexes), a.suggestion, a.reason) for a in advice], SCHEMA)


def _readable(rows: DataFrame, column: str) -> bool:
    return column.split(".", 1)[0].strip("`") in rows.columns


def _distinct_counts(rows: DataFrame, columns: list[str]) -> dict[str, int]:
    """Approximate distinct counts (HyperLogLog, one Spark job for all columns)."""
    if not columns:
        return {}
    from pyspark.sql import functions as F

    found: Any = rows.agg(*[F.approx_count_distinct(F.col(c)).alias(f"c{k}") for k, c in enumerate(columns)]).first()
    return {c: int(found[f"c{k}"]) for k, c in enumerate(columns)}
