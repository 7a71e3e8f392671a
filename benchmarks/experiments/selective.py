"""Selective queries over TPC-H lineitem (1,000 files), side by side with plain Spark.

Goals: >= 5x faster than Spark with Parquet pushdown when <= 1% of files are relevant, and
<= 5% overhead on a query that skips nothing.
"""
from __future__ import annotations

import time
from typing import Any

from benchmarks import factors as F
from benchmarks.data import tpch
from benchmarks import plots
from benchmarks.harness import PLAIN, STANDARD, WARM, measure
from benchmarks.report import Section, measurement_table, table
from skipstone import MinMax, Skipstone

QUERIES = [
    ("one ship day", "l_shipdate = DATE'1995-06-17'"),
    ("three ship days", "l_shipdate BETWEEN DATE'1995-06-01' AND DATE'1995-06-03'"),
    ("a week, big quantities", "l_shipdate BETWEEN DATE'1996-03-01' AND DATE'1996-03-07' AND l_quantity > 45"),
    ("receipt day (correlated column)", "l_receiptdate = DATE'1994-02-02'"),
    ("two distant days (OR)", "l_shipdate = DATE'1993-01-05' OR l_shipdate = DATE'1998-07-20'"),
]
SKIPS_NOTHING = ("skips nothing (LIKE on comment)", "l_comment LIKE '%special requests%'")


def sql(predicate: str) -> str:
    return ("SELECT count(*), sum(l_extendedprice * (1 - l_discount)), avg(l_quantity) "
            f"FROM lineitem WHERE {predicate}")


def run(spark: Any, data_dir: str, quick: bool) -> list[Section]:
    by_date = tpch.clustered(tpch.lineitem(data_dir, files=1000), "l_shipdate")
    start = time.perf_counter()
    Skipstone.for_path(spark, by_date).build(MinMax("l_shipdate"), MinMax("l_receiptdate"), MinMax("l_orderkey"))
    build_s = time.perf_counter() - start
    spark.read.parquet(by_date).createOrReplaceTempView("lineitem")
    repeats = 3 if quick else 5
    ms = [measure(spark, name, sql(p), STANDARD, repeats) for name, p in QUERIES]
    overhead = measure(spark, SKIPS_NOTHING[0], sql(SKIPS_NOTHING[1]), (PLAIN, WARM), repeats)

    relation = f"parquet.`{by_date}`"  # views hide _metadata, which the factors need
    all_rows = F.rows_per_file(spark, relation)
    indicator_rows = []
    for (name, p), m in zip(QUERIES, ms):
        f = F.factors(F.relevant_rows_per_file(spark, relation, p), all_rows, m.rows_skipped)
        m.extra["factors"] = f
        if f:
            indicator_rows.append([name, f.selectivity, f.layout, f.metadata, f.scanning])
    settings = [s.name for s in STANDARD]
    md = [
        f"TPC-H lineitem SF1, 6,001,215 rows in 1,000 Parquet files sorted by `l_shipdate` "
        f"(written by tpchgen-cli, re-cut with pyarrow). Indexes: MinMax on l_shipdate, l_receiptdate, "
        f"l_orderkey, read from Parquet footers in {build_s:.1f} s. Medians of {repeats} interleaved runs; "
        "each query is `SELECT count(*), sum(l_extendedprice * (1 - l_discount)), avg(l_quantity) "
        "FROM lineitem WHERE ...`.",
        "",
        measurement_table(ms, PLAIN.name, settings),
        "",
        plots.grouped_bars("bench-selective", "Selective TPC-H queries (1,000 files)", ms, settings),
        "",
        "Skipping indicators (paper, Definitions 4-7; s = l * m * sf):",
        "",
        table(["query", "selectivity s", "layout l", "metadata m", "scanning sf"], indicator_rows),
        "",
        f"Overhead on a query no index can help (`{SKIPS_NOTHING[1]}`):",
        "",
        measurement_table([overhead], PLAIN.name, [PLAIN.name, WARM.name]),
    ]
    return [Section("selective", "\n".join(md), {"build_seconds": build_s, "queries": ms, "overhead": overhead})]
