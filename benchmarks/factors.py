"""The paper's skipping indicators (Definitions 4-7, Equations 1-2).

For a query q over dataset D stored as objects (files):
  selectivity   s  = relevant rows / all rows
  layout        l  = relevant rows / rows of the objects holding a relevant row
  metadata      m  = rows of relevant objects / rows of the objects the metadata keeps
  scanning      sf = rows of the objects the metadata keeps / all rows
so that s = l * m * sf (Eq. 1); over a workload the factors are averaged geometrically, which
keeps Eq. 2 (the same product of geometric means).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence


@dataclass(frozen=True)
class Factors:
    selectivity: float
    layout: float
    metadata: float
    scanning: float


def relevant_rows_per_file(spark: Any, table: str, predicate: str) -> dict[str, int]:
    """Matching rows per file, computed with skipping off (the ground truth)."""
    spark.conf.set("spark.skipstone.enabled", "false")
    try:
        rows = spark.sql(f"SELECT _metadata.file_path AS f, count(*) AS n FROM {table} WHERE {predicate} "
                         "GROUP BY 1").collect()
    finally:
        spark.conf.set("spark.skipstone.enabled", "true")
    return {r.f: r.n for r in rows}


def rows_per_file(spark: Any, table: str) -> dict[str, int]:
    return {r.f: r.n for r in spark.sql(
        f"SELECT _metadata.file_path AS f, count(*) AS n FROM {table} GROUP BY 1").collect()}


def factors(relevant: dict[str, int], all_rows: dict[str, int], rows_skipped: int) -> Factors | None:
    """None when the query selects nothing: the factors are undefined then (paper, note 7)."""
    total = sum(all_rows.values())
    matching = sum(relevant.values())
    if matching == 0:
        return None
    in_relevant_files = sum(all_rows[f] for f in relevant)
    kept = total - rows_skipped
    return Factors(matching / total, matching / in_relevant_files, in_relevant_files / kept, kept / total)


def geometric_mean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def workload(per_query: Sequence[Factors | None]) -> Factors | None:
    defined = [f for f in per_query if f is not None]
    if not defined:
        return None
    return Factors(*(geometric_mean([getattr(f, k) for f in defined])
                     for k in ("selectivity", "layout", "metadata", "scanning")))
