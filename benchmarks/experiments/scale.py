"""Skipping at a million files (issue 12): planning time and driver memory against files.

For 10^3 … 10^6 files of synthetic metadata (benchmarks/scale_metadata.py) and two selective
predicates: cold load inside the first query's optimizer (and Spark jobs started meanwhile),
driver heap held by the version, warm evaluation + pruning of a listing of every file, and the
freshness check of the files to skip (timed on real files). `ScaleBenchmark` in the benchmarks' jar does the work.
"""
from __future__ import annotations

import json
import os
from typing import Any

from benchmarks import plots
from benchmarks.report import Section, table
from benchmarks.scale_metadata import SELECTIVE, empty_files, predicate, publish, setup_dataset

SIZES = (1_000, 10_000, 100_000, 1_000_000)
TARGETS = {100_000: 100.0, 1_000_000: 1000.0}
"""Warm planning p50 targets (ms) of issue 12."""
COLD_TARGETS = {1_000_000: 5000.0}
"""Cold load targets (ms) of issue 12."""


def _verdict(targets: dict[int, float], files: int, value: float) -> str:
    target = targets.get(files)
    return "-" if target is None else ("met" if value < target else "**not met**")


def measure(spark: Any, data_dir: str, sizes: tuple[int, ...], runs: int) -> list[dict[str, Any]]:
    ds = setup_dataset(spark, data_dir)
    verify_dir = empty_files(data_dir, 20_000)
    bench = spark._jvm.io.skipstone.bench.ScaleBenchmark
    data = []
    for files in sizes:
        publish(spark, ds, files)
        for name, template in SELECTIVE.items():
            sql = predicate(template, files)
            out = json.loads(bench.run(spark._jsparkSession, ds.root, sql, runs, verify_dir))
            out["load_average"] = round(os.getloadavg()[0], 1)
            print(f"   {files:>9,} {name:<26} {out}", flush=True)
            data.append({"predicate": name, "sql": sql, **out})
    return data


def run(spark: Any, data_dir: str, quick: bool) -> list[Section]:
    return [render(measure(spark, data_dir, SIZES, 3 if quick else 7))]


def render(data: list[dict[str, Any]]) -> Section:
    """The docs section (table and plot) of measured ``data``."""
    rows = []
    for d in data:
        managed = d.get("managed_planning_p50_ms", d["evaluate_prune_p50_ms"])
        rows.append([f"{d['files']:,}", d["predicate"], f"{d['skipped']:,}",
                     f"{d['cold_optimize_ms']:,.0f} ({_verdict(COLD_TARGETS, d['files'], d['cold_optimize_ms'])})",
                     d["jobs_during_cold_planning"], d["held_bytes_per_file"],
                     ", ".join(f"{k} {v:.0f}" for k, v in sorted(d["bytes_per_file_by_kind"].items())),
                     f"{managed:,.0f} ({_verdict(TARGETS, d['files'], managed)})",
                     d["verify_ms"],
                     f"{d['planning_p50_ms']:,.0f} ({_verdict(TARGETS, d['files'], d['planning_p50_ms'])})",
                     d.get("distributed_evaluate_prune_ms", "-"),
                     "-" if "distributed_skipped" not in d else
                     "yes" if d["distributed_skipped"] == d["skipped"] else "**NO**",
                     d.get("load_average", "-")])
    sizes = sorted({d["files"] for d in data})
    first = next(iter(SELECTIVE))
    pick = [d for d in data if d["predicate"] == first]
    figure = plots.lines("bench-scale", "Planning and driver memory against files", sizes, {
        "cold load in optimizer (ms)": [d["cold_optimize_ms"] for d in pick],
        "warm planning p50, managed table (ms)": [d.get("managed_planning_p50_ms", d["evaluate_prune_p50_ms"]) for d in pick],
        "warm planning p50, any dataset (ms)": [d["planning_p50_ms"] for d in pick],
        "driver bytes per file": [d["held_bytes_per_file"] for d in pick],
    }, "files", "ms / bytes")
    md = ("Wall clock on 2 shared cores (the load average at each row is in the last column). Per size: "
          "synthetic metadata of N files (3 MinMax indexes) published as a real version; `cold` = the "
          "first query's optimizer loading it (jobs started meanwhile counted; target at 10^6 files: "
          "under 5 s); `held` = driver heap the version holds (after full GCs); warm planning of a "
          "**managed table** = evaluate + prune a listing of all N files (p50): its files are immutable "
          "and listed from its manifest, so nothing is checked on disk; warm planning of **any other "
          "dataset** adds the check that each file to skip is unchanged since it was indexed (one "
          "`stat` per skipped file on local disk, one listing per directory elsewhere; per-file cost "
          "timed on 20,000 real files, times the files skipped); targets: under 100 ms at 10^5 files, "
          "under 1 s at 10^6. Distributed = the same prune with the version left to a Spark job over "
          "its table. Reproduce: `python -m benchmarks.run --only scale` (or `--quick`).\n\n") + table(
        ["files", "predicate", "skipped", "cold load in optimizer (ms)", "jobs in planning",
         "held bytes / file (heap)", "accounted bytes / file by kind",
         "warm planning p50, managed table (ms)", "check skipped files on disk (ms)",
         "warm planning p50, any dataset (ms)", "distributed evaluate + prune (ms)",
         "distributed skips the same", "load average"], rows) + "\n\n" + figure
    return Section("scale", md, data)
