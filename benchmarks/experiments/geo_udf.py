"""Geospatial UDF queries over growing time windows (the paper's Figure 9).

`st_contains(polygon, lat, lon)` is a real Python UDF over shapely. Without skipping Spark
must run it on every row; with MinMax on lat/lon/ts and the UDF mapping, Skipstone rules out
every file whose bounding box misses the polygon's.
"""
from __future__ import annotations

from typing import Any

import skipstone
from benchmarks.data import weblog
from benchmarks.harness import PLAIN, PLAIN_NO_PUSHDOWN, WARM, measure
from benchmarks.report import Section, measurement_table
from skipstone import MinMax, Skipstone

RESEARCH_TRIANGLE = "POLYGON((-79.2 35.6, -78.4 35.6, -78.4 36.2, -79.2 36.2, -79.2 35.6))"


def st_contains(polygon_wkt: str, lat: float, lon: float) -> bool | None:
    from shapely import wkt
    from shapely.geometry import Point

    if polygon_wkt is None or lat is None or lon is None:
        return None
    return bool(wkt.loads(polygon_wkt).contains(Point(lon, lat)))


def run(spark: Any, data_dir: str, quick: bool) -> list[Section]:
    if not hasattr(skipstone, "geo_minmax_mapping"):
        return [Section("geo_udf", "_The geospatial UDF mapping is not available in this build._", [])]
    # The full run uses 4x the rows in 4x the files: what a query can skip is bounded by how
    # finely the layout cuts the map (the paper had 8,192 files per month).
    rows, files = (2_000_000, 1024) if quick else (8_000_000, 4096)
    root = weblog.write(data_dir, rows=rows, files=files, layout="kd")
    Skipstone.for_path(spark, root).build(MinMax("lat"), MinMax("lon"), MinMax("ts"), skipstone.geo_minmax_mapping())
    spark.udf.register("st_contains", st_contains, "boolean")
    spark.read.parquet(root).createOrReplaceTempView("weblog")
    repeats = 2 if quick else 3
    ms = []
    for months in ((1, 12) if quick else (1, 3, 6, 12)):
        end = f"2024-{1 + months:02d}-01" if months < 12 else "2025-01-01"
        sql = (f"SELECT city, count(*) FROM weblog WHERE st_contains('{RESEARCH_TRIANGLE}', lat, lon) "
               f"AND ts >= TIMESTAMP'2024-01-01 00:00:00' AND ts < TIMESTAMP'{end} 00:00:00' GROUP BY city")
        ms.append(measure(spark, f"{months} month(s)", sql, (PLAIN, PLAIN_NO_PUSHDOWN, WARM), repeats))
    md = (f"Web-log dataset ({rows:,} rows, {files:,} files requested), geographic layout within each month; "
          "`st_contains` is a Python UDF over "
          f"shapely; MinMax on lat, lon, ts plus `geo_minmax_mapping()`. Medians of {repeats} run(s).\n\n"
          ) + measurement_table(ms, PLAIN_NO_PUSHDOWN.name, [PLAIN_NO_PUSHDOWN.name, PLAIN.name, WARM.name])
    return [Section("geo_udf", md, ms)]
