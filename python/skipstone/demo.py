"""`make demo` / `python -m skipstone demo`: index a sample dataset and compare queries, then
make a managed table of it (lay out, query, append, optimize, query again; demo_table.py).

Each query runs with Skipstone off (plain Spark, its Parquet pushdown on) and on, three times
each; the table shows files and bytes skipped, median times, and whether results are identical.
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from typing import Any

import skipstone
from skipstone import MinMax, Skipstone
from skipstone.sample_data import write_weather

QUERIES = (
    ("one day", "SELECT count(*), avg(temp) FROM weather WHERE ts >= '2024-03-10' AND ts < '2024-03-11'"),
    ("first week, hot stations",
     "SELECT station, max(temp) FROM weather WHERE ts < '2024-01-08' AND temp > 5 GROUP BY station"),
    ("heat waves", "SELECT city, count(*) FROM weather WHERE temp > 36 GROUP BY city"),
    ("year's edges",
     "SELECT count(*) FROM weather WHERE ts < '2024-01-03' OR ts BETWEEN '2024-12-30' AND '2025-01-01'"),
    ("cold summer days", "SELECT * FROM weather WHERE temp < 0 AND ts BETWEEN '2024-06-01' AND '2024-08-31'"),
    ("one station (not clustered)", "SELECT count(*) FROM weather WHERE station = 42"),
)


def timed(spark: Any, sql: str, enabled: bool) -> tuple[list[tuple[Any, ...]], float]:
    spark.conf.set("spark.skipstone.enabled", str(enabled).lower())
    start = time.perf_counter()
    rows = spark.sql(sql).collect()
    return sorted(tuple(r) for r in rows), time.perf_counter() - start


def session() -> Any:
    """The demo's local Spark session, Skipstone enabled."""
    from pyspark.sql import SparkSession

    spark = skipstone.configure(
        SparkSession.builder.master("local[2]").appName("skipstone-demo")
        .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
    ).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def run(spark: Any, path: str | None = None, repeats: int = 3, tables: bool = True,
        rows: int = 300_000, files: int = 100) -> list[dict[str, Any]]:
    """Index, query and print the skipping table, then (``tables``) the managed-table part."""
    began = time.perf_counter()
    root = path or os.path.join(tempfile.mkdtemp(prefix="skipstone-demo-"), "weather")
    print(f"Writing {rows:,} weather events in {files} Parquet files to {root} ...")
    write_weather(root, rows=rows, files=files)
    start = time.perf_counter()
    Skipstone.for_path(spark, root).build(MinMax("ts"), MinMax("temp"), MinMax("station"))
    print(f"Indexed MinMax(ts), MinMax(temp), MinMax(station) in {time.perf_counter() - start:.1f} s")
    spark.read.parquet(root).createOrReplaceTempView("weather")
    results = []
    for name, sql in QUERIES:
        plain_times, skip_times = [], []
        for _ in range(repeats):  # interleaved, so warm-up favours neither side
            plain_rows, t = timed(spark, sql, enabled=False)
            plain_times.append(t)
            rows_read, t = timed(spark, sql, enabled=True)
            skip_times.append(t)
        stats = skipstone.last_query_stats(spark)
        results.append(dict(query=name, files_skipped=stats.files_skipped, files_total=stats.files_total,
                            bytes_skipped=stats.bytes_skipped, bytes_total=stats.bytes_total,
                            plain_s=statistics.median(plain_times), skipstone_s=statistics.median(skip_times),
                            identical=rows_read == plain_rows))
    print()
    print_table(results)
    if tables:
        from skipstone import demo_table

        print("\nManaged table: lay out, query, append, optimize, query again ...")
        table_results, log = demo_table.run(spark, root, tempfile.mkdtemp(prefix="skipstone-demo-table-"),
                                            block_rows=max(1, rows // 30))
        demo_table.print_report(table_results, log)
        results += [dict(r, table=True) for r in table_results]
    print(f"\nThe demo took {time.perf_counter() - began:.0f} s after Spark started.")
    return results


def print_table(results: list[dict[str, Any]]) -> None:
    header = f"{'query':<30} {'files skipped':>14} {'bytes skipped':>14} {'plain Spark':>12} {'Skipstone':>10} {'speed-up':>9} {'identical':>10}"
    print(header)
    print("-" * len(header))
    for r in results:
        share = r["bytes_skipped"] / r["bytes_total"] if r["bytes_total"] else 0.0
        print(f"{r['query']:<30} {r['files_skipped']:>6} / {r['files_total']:<5} {share:>13.0%} "
              f"{r['plain_s'] * 1000:>9.0f} ms {r['skipstone_s'] * 1000:>7.0f} ms "
              f"{r['plain_s'] / r['skipstone_s']:>8.1f}x {'yes' if r['identical'] else 'NO':>10}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m skipstone demo", description=__doc__)
    parser.add_argument("--path", help="where to write the sample dataset (default: a temp dir)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per query and setting (median)")
    parser.add_argument("--no-tables", action="store_true", help="skip the managed-table part")
    args = parser.parse_args(argv)
    spark = session()
    try:
        results = run(spark, args.path, args.repeats, tables=not args.no_tables)
    finally:
        spark.stop()
    return 0 if all(r["identical"] for r in results) else 1
