"""The managed-table part of `make demo`: lay the sample data out with Amoeba, query it, append,
optimize, query again, and check every answer against plain Spark on the same rows.

Files read per query come from Skipstone's per-query stats; a query over a managed table lists
its files from the table's manifest, so "files" below are the table's, not the source's.
"""
from __future__ import annotations

import os
import time
from typing import Any

import skipstone
from skipstone import MinMax, Skipstone
from skipstone.layout import Amoeba

QUERIES = (
    ("freezing", "SELECT count(*), avg(humidity) FROM {t} WHERE temp < -2"),
    ("hot and dry", "SELECT count(*) FROM {t} WHERE temp > 30 AND humidity < 30"),
    ("one week in May", "SELECT count(*), max(temp) FROM {t} WHERE ts >= '2024-05-01' AND ts < '2024-05-08'"),
    ("a few stations", "SELECT station, count(*) FROM {t} WHERE station IN (7, 77, 444) GROUP BY station"),
)


def _answers(spark: Any, sql: str) -> list[tuple[Any, ...]]:
    # Floating-point sums depend on the order rows are added in, which a new layout changes.
    return sorted(tuple(round(v, 6) if isinstance(v, float) else v for v in r) for r in spark.sql(sql).collect())


def _run_queries(spark: Any, table_root: str, label: str) -> list[dict[str, Any]]:
    """Each query on the table (skipping on) and on a plain copy of the same rows (skipping off)."""
    spark.read.parquet(table_root).createOrReplaceTempView("events")
    results = []
    for name, template in QUERIES:
        spark.conf.set("spark.skipstone.enabled", "false")
        expected = _answers(spark, template.format(t="events_source"))
        spark.conf.set("spark.skipstone.enabled", "true")
        start = time.perf_counter()
        rows = _answers(spark, template.format(t="events"))
        elapsed = time.perf_counter() - start
        stats = skipstone.last_query_stats(spark)
        results.append(dict(step=label, query=name, files_read=stats.files_total - stats.files_skipped,
                            files_total=stats.files_total, ms=elapsed * 1000, identical=rows == expected))
    return results


def run(spark: Any, source_root: str, workdir: str, block_rows: int = 10_000) -> tuple[list[dict[str, Any]], list[str]]:
    """Lay out, query, append, optimize, query again; returns the query rows and a log of steps."""
    log: list[str] = []
    table_root = os.path.join(workdir, "events_table")
    source = spark.read.parquet(source_root)
    first, later = source.where("ts < '2024-11-01'"), source.where("ts >= '2024-11-01'")
    first.createOrReplaceTempView("events_source")

    start = time.perf_counter()
    t = Skipstone.create(spark, table_root, first, layout=Amoeba(block_rows=block_rows), indexes=[MinMax("station")])
    log.append(f"Skipstone.create: {t.files().count()} files in {t.tree().block_count} blocks laid out by an "
               f"Amoeba tree (no workload needed), version {t.version}, {time.perf_counter() - start:.1f} s")
    results = _run_queries(spark, table_root, "created")

    appended = t.append(later)
    source.createOrReplaceTempView("events_source")
    log.append(f"t.append: {appended.rows} rows routed through the tree into {appended.files_added} new files, "
               f"version {appended.version}")

    for _ in range(3):  # one bounded batch per iteration: compaction first, then the layout policy
        start = time.perf_counter()
        done = t.optimize()
        if done is None:
            log.append("t.optimize: nothing left that pays for itself")
            break
        log.append(f"t.optimize: {done.strategy} ({done.reason}) rewrote {done.rows_rewritten} rows, "
                   f"+{done.files_added} / -{done.files_removed} files, version {done.version}, "
                   f"{time.perf_counter() - start:.1f} s")
    results += _run_queries(spark, table_root, "appended + optimized")
    deletable = t.vacuum(dry_run=True).count()
    history = t.history().collect()
    replaced = sum(r.files_removed or 0 for r in history)
    log.append(f"t.vacuum(dry_run=True): {deletable} files to delete now; the {replaced} files optimize replaced "
               f"stay for the retention (168 h), for readers of older versions")
    log.append(f"t.history(): {len(history)} versions; t.workload(): {t.workload().count()} logged queries")
    return results, log


def print_report(results: list[dict[str, Any]], log: list[str]) -> None:
    for line in log:
        print(f"  {line}")
    print()
    header = f"{'table state':<22} {'query':<18} {'files read':>12} {'time':>9} {'identical':>10}"
    print(header)
    print("-" * len(header))
    for r in results:
        print(f"{r['step']:<22} {r['query']:<18} {r['files_read']:>5} / {r['files_total']:<5} "
              f"{r['ms']:>6.0f} ms {'yes' if r['identical'] else 'NO':>10}")
