"""Centralized metadata against Parquet footers (the paper's Figure 10).

The web-log dataset is laid out by month and, within a month, by a k-d tree over lat/lon
(as the paper's weather data). Each query asks for a region (North Carolina's Research
Triangle, as in the paper) over a growing time window, written the "rewritten" way with
explicit lat/lon ranges. Plain Spark answers it with Parquet min/max: it must open every
file's footer. Skipstone's MinMax metadata rules the same files out from one small table.
"""
from __future__ import annotations

import time
from typing import Any

from benchmarks.data import weblog
from benchmarks.harness import PLAIN, WARM, measure
from benchmarks.report import Section, measurement_table
from skipstone import MinMax, Skipstone

BOX = "lat BETWEEN 35.6 AND 36.2 AND lon BETWEEN -79.2 AND -78.4"


def window(months: int) -> str:
    end = f"2024-{1 + months:02d}-01" if months < 12 else "2025-01-01"
    return f"ts >= TIMESTAMP'2024-01-01 00:00:00' AND ts < TIMESTAMP'{end} 00:00:00'"


def run(spark: Any, data_dir: str, quick: bool) -> list[Section]:
    root = weblog.write(data_dir, layout="kd")
    start = time.perf_counter()
    Skipstone.for_path(spark, root).build(MinMax("lat"), MinMax("lon"), MinMax("ts"))
    build_s = time.perf_counter() - start
    spark.read.parquet(root).createOrReplaceTempView("weblog")
    repeats = 3 if quick else 5
    ms = []
    for months in (1, 3, 6, 12):
        sql = f"SELECT city, count(*), sum(bytes) FROM weblog WHERE {BOX} AND {window(months)} GROUP BY city"
        ms.append(measure(spark, f"{months} month(s)", sql, (PLAIN, WARM), repeats))
    md = (f"Web-log dataset (2,000,000 requests from real cities and user agents, 1,020 files, "
          f"k-d layout on lat/lon within each month). MinMax on lat, lon, ts built in {build_s:.1f} s "
          f"(lat/lon are doubles: scanned, not read from footers). Query: `SELECT city, count(*), "
          f"sum(bytes) FROM weblog WHERE {BOX} AND <window> GROUP BY city`. "
          f"Medians of {repeats} interleaved runs.\n\n") + measurement_table(ms, PLAIN.name, [PLAIN.name, WARM.name])
    return [Section("centralized", md, {"build_seconds": build_s, "queries": ms})]
