"""`make bench-layout`: Amoeba's TPC-H experiment on Spark, in wall-clock time.

    python -m benchmarks.layout_spark.bench [--quick | --sf 10] [--queries N] [--blocks N]

Denormalized lineitem (TPC-H via tpchgen-cli, joined by Spark) is laid out once per method as
a managed table; then the interleaved template workload (q3, q5, q6, q8, q12, q14, q19 with
changing parameters, `benchmarks.layout_sim.templates`) runs query by query on every table in turn,
so the machine's load drifts over all methods alike. The adaptive table is optimized with
AmoebaAdaptive (its calibrated defaults: SparkCost, the measured write multiplier) every
`--optimize-every` queries, and that time counts: planning and rewriting. PAW is built from a
history of the same templates drawn with another seed. Then the worst case: queries on random
attributes with random ranges, on the same tables (their layouts never change) and on new
adaptive tables. `adaptive-paw` starts from the same upfront tree and is optimized by
BestOf(AmoebaAdaptive, PawRebuild): Amoeba's local rewrites or a PAW rebuild from the logged
window, whichever saves more net of its cost. Every answer must equal the full scan's. The `deltalake` package's Z-order
joins as an outside peer: files and bytes its min/max statistics let a reader skip (no wall
clock: Spark here has no Delta reader).

Writes benchmarks/layout_spark/results/<name>.json and .md, and docs/img/<name>.png.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
RESULTS = os.path.join(ROOT, "benchmarks", "layout_spark", "results")


@dataclass
class MethodRun:
    method: str
    blocks: int = 0
    create_s: float = 0.0
    query_s: float = 0.0
    plan_s: float = 0.0  # optimize calls deciding (reading the log and sample, the policy's search)
    rewrite_s: float = 0.0  # optimize calls rewriting and committing
    optimizations: int = 0  # optimize calls
    rewrites: int = 0  # of which rewrote blocks
    files_read: int = 0
    files_total: int = 0
    bytes_read: int = 0
    bytes_total: int = 0
    wrong_answers: int = 0
    per_query_s: list[float] = field(default_factory=list)
    per_query_files: list[int] = field(default_factory=list)  # for calibrating a per-file cost
    per_query_bytes: list[int] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)  # what each rewrite did (the policy's description)

    @property
    def optimize_s(self) -> float:
        return self.plan_s + self.rewrite_s

    @property
    def total_s(self) -> float:
        return self.query_s + self.optimize_s

    def count(self, seconds: float, files: int, files_total: int, size: int, size_total: int) -> None:
        """One query's time and what it read (files and bytes, and out of how many)."""
        self.query_s += seconds
        self.per_query_s.append(seconds)
        self.files_read += files
        self.files_total += files_total
        self.bytes_read += size
        self.bytes_total += size_total
        self.per_query_files.append(files)
        self.per_query_bytes.append(size)

    def optimize(self, spark: Any, table: Any, policy: Any) -> tuple[Any, Any, float, float]:
        """One layout step of ``t.optimize(policy)``, timed as its two parts: deciding (the plan:
        reading the log and sample, the policy's search) and rewriting (apply: rewrite and
        commit). The plan (None when nothing pays), the result, and the seconds of each part."""
        from skipstone.table.optimize import apply, plan

        started = time.perf_counter()
        planned = plan(spark, table.current(), None, policy)  # None: the table's own log
        decided = time.perf_counter() - started
        self.plan_s += decided
        self.optimizations += 1
        if planned is None:
            return None, None, decided, 0.0
        started = time.perf_counter()
        result = apply(spark, planned)
        seconds = time.perf_counter() - started
        self.rewrite_s += seconds
        self.rewrites += 1
        self.changes.append(planned.change.description[:300])
        return planned, result, decided, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sf", type=float, default=1.0, help="TPC-H scale factor (1; 10 for the large run)")
    parser.add_argument("--quick", action="store_true", help="SF 0.1, fewer queries: a few minutes")
    parser.add_argument("--queries", type=int, help="workload length (default 140; 42 with --quick)")
    parser.add_argument("--random-queries", type=int, help="worst-case workload length (default: --queries)")
    parser.add_argument("--blocks", type=int, help="blocks per table (default 256; 64 with --quick)")
    parser.add_argument("--history", type=int, default=50, help="historical queries PAW is built from")
    parser.add_argument("--optimize-every", type=int, default=10)
    parser.add_argument("--window", type=int, default=30)
    parser.add_argument("--methods", default=None, help="comma-separated (default: all but qdtree)")
    parser.add_argument("--cache", default=os.path.join(ROOT, "benchmarks", ".data"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workloads", default="templates,random", help="templates, random, or both")
    parser.add_argument("--random-methods", default="fullscan,kd,amoeba,adaptive,adaptive-paw",
                        help="the methods the random workload runs on (the worst case concerns adaptive)")
    args = parser.parse_args()
    scale = 0.1 if args.quick else args.sf
    queries = args.queries or (42 if args.quick else 140)
    blocks = args.blocks or (64 if args.quick else 256)
    name = f"tpch-sf{scale:g}" + ("-quick" if args.quick else "")

    from benchmarks.harness import session
    from benchmarks.layout_spark.methods import CURVE_COLUMNS, DEFAULT, METHODS, POLICIES
    from benchmarks.layout_spark.tpch_data import denormalized
    from benchmarks.layout_spark.workload import random_workload, template_workload

    methods = tuple(args.methods.split(",")) if args.methods else DEFAULT
    spark = session("skipstone-bench-layout")
    source = denormalized(spark, scale, args.cache, blocks)
    df = spark.read.parquet(source)
    rows = df.count()
    block_rows = max(1, rows // blocks)
    workload, history = template_workload(spark, df, queries, args.history, args.seed)
    phases = args.workloads.split(",")
    work = tempfile.mkdtemp(prefix="skipstone-bench-layout-")
    print(f"{name}: {rows:,} rows, {blocks} blocks of {block_rows:,} rows, {queries} queries; tables in {work}",
          flush=True)
    as_json = lambda runs: {r.method: {**asdict(r), "optimize_s": r.optimize_s, "total_s": r.total_s}  # noqa: E731
                            for r in runs.values()}
    result: dict[str, Any] = {"name": name, "scale": scale, "rows": rows, "blocks": blocks, "block_rows": block_rows,
                              "queries": queries, "history": args.history, "optimize_every": args.optimize_every,
                              "window": args.window, "seed": args.seed, "curve_columns": list(CURVE_COLUMNS),
                              "load_average": [os.getloadavg()]}
    try:
        runs, tables = _create_all(spark, df, methods, block_rows, history, work)
        if "templates" in phases:
            _run_workload(spark, source, workload, runs, tables, args)
            result["methods"] = as_json(runs)
            result["deltalake"] = _delta_peer(source, work, CURVE_COLUMNS, blocks, workload)
            _write(result)  # the first workload's results survive if the second fails
        if "random" in phases:
            # the same tables (their layouts never change) but a new adaptive one, whose runs start afresh
            chosen = args.random_methods.split(",")
            fresh = {m: MethodRun(m, blocks=r.blocks, create_s=r.create_s) for m, r in runs.items() if m in chosen}
            adaptive = tuple(m for m in fresh if m in POLICIES)
            if adaptive:
                new_runs, new_tables = _create_all(spark, df, adaptive, block_rows, history, os.path.join(work, "random"))
                for m in adaptive:
                    tables[m], fresh[m] = new_tables[m], new_runs[m]
            random_queries = args.random_queries or queries
            _run_workload(spark, source, random_workload(df, random_queries, args.seed + 2), fresh, tables, args)
            result["random"] = {"queries": random_queries, "methods": as_json(fresh)}
        result["load_average"].append(os.getloadavg())  # at the start and at the end
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)
    _write(result)


def _write(result: dict[str, Any]) -> None:
    from benchmarks.layout_spark.report import write_report

    write_report(result, RESULTS, os.path.join(ROOT, "docs", "img"))


def _create_all(spark: Any, df: Any, methods: tuple[str, ...], block_rows: int, history: list[dict], work: str):
    from benchmarks.layout_spark.methods import METHODS
    from skipstone import Skipstone

    runs, tables = {}, {}
    for method in methods:
        spec = METHODS[method](block_rows, history)
        run = MethodRun(method)
        if spec is not None:
            started = time.perf_counter()
            tables[method] = Skipstone.create(spark, os.path.join(work, method), df, layout=spec)
            run.create_s = time.perf_counter() - started
            run.blocks = tables[method].tree().block_count
        runs[method] = run
        print(f"  created {method}: {run.create_s:.1f} s, {run.blocks} blocks", flush=True)
    return runs, tables


def _run_workload(spark: Any, source: str, workload: list[dict], runs: dict, tables: dict, args: Any) -> None:
    import skipstone
    from benchmarks.layout_spark.predicate_sql import to_sql
    from benchmarks.layout_spark.methods import POLICIES

    source_files = [os.path.join(source, n) for n in os.listdir(source) if n.endswith(".parquet")]
    source_bytes = sum(os.path.getsize(p) for p in source_files)
    for i, tree in enumerate(workload):
        condition = to_sql(tree)
        reference = None
        for method, run in runs.items():
            root = tables[method].root if method in tables else source
            spark.conf.set("spark.skipstone.enabled", str(method in tables).lower())
            started = time.perf_counter()
            answer = spark.sql("SELECT count(*), sum(l_extendedprice * (1 - l_discount)) "
                               f"FROM parquet.`{root}` WHERE {condition}").collect()
            seconds = time.perf_counter() - started
            if method in tables:
                stats = skipstone.last_query_stats(spark)
                run.count(seconds, stats.files_total - stats.files_skipped, stats.files_total,
                          stats.bytes_total - stats.bytes_skipped, stats.bytes_total)
            else:
                run.count(seconds, len(source_files), len(source_files), source_bytes, source_bytes)
            reference = answer if reference is None else reference
            run.wrong_answers += int(answer != reference)
            if method in POLICIES and (i + 1) % args.optimize_every == 0:
                planned, _, decided, rewriting = run.optimize(spark, tables[method], POLICIES[method](args.window))
                said = f"  optimize {method}: decided in {decided:.1f} s, "
                if planned is None:
                    print(said + "nothing pays", flush=True)
                else:
                    print(said + f"rewrote {len(planned.change.rewritten_blocks)} blocks in {rewriting:.1f} s "
                          f"(benefit {planned.change.benefit:.3g}, cost {planned.change.cost:.3g}): "
                          f"{planned.change.description[:120]}", flush=True)
        spark.conf.set("spark.skipstone.enabled", "true")
        print(f"  query {i + 1}/{len(workload)}: " + ", ".join(f"{m} {r.per_query_s[-1]:.2f}s" for m, r in runs.items()),
              flush=True)


def _delta_peer(source: str, work: str, columns: tuple[str, ...], blocks: int, workload: list[dict]) -> dict | None:
    try:
        from benchmarks.layout_spark.delta_peer import may_match, zordered_delta
    except ImportError:
        return None
    try:
        total = sum(os.path.getsize(os.path.join(source, n)) for n in os.listdir(source) if n.endswith(".parquet"))
        files, seconds = zordered_delta(source, os.path.join(work, "delta"), columns, max(1, total // blocks))
    except ImportError as e:
        print(f"  deltalake peer skipped: {e}", flush=True)
        return None
    read = [[f for f in files if may_match(tree, f)] for tree in workload]
    return {"files": len(files), "create_s": seconds, "files_read": sum(len(r) for r in read),
            "files_total": len(files) * len(workload), "bytes_read": sum(f.size for r in read for f in r),
            "bytes_total": sum(f.size for f in files) * len(workload)}


if __name__ == "__main__":
    main()
