"""Driver-side overhead of the wrapper against the number of files, next to Spark's listing.

Clause compilation + evaluation over N files' metadata (synthetic metadata, see
benchmarks/clause_eval.py) beside the time Spark's InMemoryFileIndex takes to list N files.
"""
from __future__ import annotations

import json
import os
import statistics
import time
from typing import Any

from benchmarks.clause_eval import PREDICATES, instantiate, publish_synthetic, setup_dataset
from benchmarks import plots
from benchmarks.report import Section, table
from skipstone.session import jvm_entry


def listing_seconds(spark: Any, data_dir: str, files: int, runs: int) -> float:
    """Median time for Spark to list a directory of ``files`` (empty) files."""
    folder = os.path.join(data_dir, f"listing-{files}")
    if not os.path.exists(os.path.join(folder, "_DONE")):
        os.makedirs(folder, exist_ok=True)
        for i in range(files):
            open(os.path.join(folder, f"part-{i:07d}.parquet"), "w").close()
        open(os.path.join(folder, "_DONE"), "w").close()
    entry = jvm_entry(spark)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        entry.listDataFiles(spark._jsparkSession, "file:" + folder)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(spark: Any, data_dir: str, quick: bool) -> list[Section]:
    runs = 5 if quick else 9
    root, ds = setup_dataset(spark, data_dir)
    rows, data = [], []
    for files in (1000, 10_000, 100_000):
        publish_synthetic(spark, ds, files)
        listing = listing_seconds(spark, data_dir, files, 3)
        for name, sql in PREDICATES.items():
            sql = instantiate(sql, files)
            out = json.loads(spark._jvm.io.skipstone.bench.PlanningBenchmark.run(
                spark._jsparkSession, ds.root, spark.read.parquet(root).where(sql)._jdf, runs))
            data.append({"files": files, "predicate": name, "listing_ms": listing * 1000, **out})
            rows.append([f"{files:,}", name, out["skipped"], out["median_ms"], listing * 1000,
                         f"{out['median_ms'] / (listing * 1000):.1%}"])
    sizes = sorted({d["files"] for d in data})
    series = {name: [d["median_ms"] for d in data if d["predicate"] == name] for name in PREDICATES}
    series["Spark listing"] = [next(d["listing_ms"] for d in data if d["files"] == n) for n in sizes]
    figure = plots.lines("bench-planning", "Skipping work vs listing", sizes, series, "files", "ms")
    md = ("Median of %d runs of clause compilation and evaluation over every file's metadata "
          "(`PlanningBenchmark`, synthetic MinMax metadata on 3 columns: one k-range, one day and "
          "one string range per file), beside the median time Spark's `InMemoryFileIndex` takes to "
          "list the same number of (empty) files from local disk.\n\n" % runs) + table(
        ["files", "predicate", "files skipped", "skipping (ms)", "Spark listing (ms)", "skipping / listing"],
        rows) + "\n\n" + figure
    return [Section("planning", md, data)]
