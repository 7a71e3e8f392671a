"""`make bench-appends`: do appends keep a managed table clustered? (issue 23, requirement 5)

    python -m benchmarks.layout_spark.appends [--sf 0.1] [--appends 10] [--fraction 0.05] [--layout kd|amoeba]

Denormalized TPC-H lineitem (`tpch_data`) is split by a hash of its rows into a base and ten
batches of 5 % of the base each, drawn from the same distribution (the base plus all batches is
the whole table). Three tables, compared after every append, query by query in turn so that the
machine's load drifts over all alike:

- ``appended``: the base laid out once, then each batch appended (one small file per block it
  routes rows to), never compacted until the last append, after which one `t.optimize()`
  (strategies ``unindexed,compaction``) runs;
- ``compacted``: the same appends, each followed by `t.optimize()`: what compaction costs when
  it runs after every append, and what it gives;
- ``rebuilt``: the same rows laid out from scratch (a new table, the same spec and target block
  rows): what a full re-optimization would give at that size.

For a fixed set of template queries (q3, q5, q6, q14 of `benchmarks.layout_sim.templates`) each
table reports the fraction of its files, bytes and rows the queries read (summed over the
queries, so comparable as the table grows) and the wall-clock of queries, appends and
compactions. Every answer must be the same on all three tables. Writes
benchmarks/layout_spark/results/appends-<name>.json and prints a Markdown table.
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

TEMPLATES = ("q3", "q5", "q6", "q14")
KD_COLUMNS = ("l_shipdate", "o_orderdate", "l_quantity")
TABLES = ("appended", "compacted", "rebuilt")


@dataclass
class Reads:
    """What the queries read of one table at one point, summed over the queries."""

    files: float = 0.0  # fractions of the table, summed over the queries
    bytes: float = 0.0
    rows: float = 0.0
    files_read: int = 0
    table_files: int = 0
    blocks: int = 0
    query_s: float = 0.0
    answers: list = field(default_factory=list)


@dataclass
class Point:
    """The three tables after one append."""

    append: str  # how many appends ran ("10, then compacted": the appended table compacted after the last)
    rows: int
    reads: dict[str, Reads]
    append_s: float = 0.0  # the append to `appended` (the one to `compacted` takes the same)
    compact_s: float = 0.0  # the optimize after the append to `compacted` (last point: of `appended`)
    compact_rows: int = 0  # the rows it rewrote
    rebuild_s: float = 0.0  # creating `rebuilt` from scratch


def queries(seed: int, per_template: int) -> list[str]:
    from benchmarks.layout_sim.templates import TPCH_TEMPLATES
    from benchmarks.layout_spark.predicate_sql import to_sql

    rng = np.random.default_rng(seed)
    # none of the chosen templates looks at the data (q8 would: its part types)
    return [to_sql(TPCH_TEMPLATES[t](rng, None)) for t in TEMPLATES for _ in range(per_template)]


def split(spark: Any, source: str, work: str, appends: int, fraction: float) -> list[str]:
    """The base and the batches as Parquet directories: a row goes by a hash of all its columns,
    so every batch is a uniform draw of the table."""
    from pyspark.sql import functions as F

    df = spark.read.parquet(source)
    u = F.pmod(F.xxhash64(*df.columns), F.lit(1 << 30)) / float(1 << 30)
    base = 1.0 / (1.0 + appends * fraction)
    bounds = [0.0, base] + [base * (1 + (k + 1) * fraction) for k in range(appends)]
    bounds[-1] = 1.0 + 1e-9
    paths = []
    for k, (low, high) in enumerate(zip(bounds, bounds[1:])):
        path = os.path.join(work, "batches", f"b{k:02d}")
        df.where((u >= low) & (u < high)).write.parquet(path)
        paths.append(path)
    return paths


def read_all(spark: Any, tables: dict[str, Any], points: list[str]) -> dict[str, Reads]:
    import skipstone

    reads = {name: Reads() for name in tables}
    total_rows = {}
    for name, t in tables.items():
        version = t.current()
        reads[name].table_files = len(version.files)
        reads[name].blocks = len({f.block for f in version.files})
        total_rows[name] = sum(f.rows for f in version.files)
    for where in points:
        for name, t in tables.items():  # query by query, every table in turn
            r = reads[name]
            started = time.perf_counter()
            answer = spark.sql("SELECT count(*), sum(l_extendedprice * (1 - l_discount)) "
                               f"FROM parquet.`{t.root}` WHERE {where}").first()
            r.query_s += time.perf_counter() - started
            s = skipstone.last_query_stats(spark)
            skipped_rows = sum(d.rows_skipped for d in s.per_dataset)
            r.files += (s.files_total - s.files_skipped) / s.files_total
            r.bytes += (s.bytes_total - s.bytes_skipped) / s.bytes_total
            r.rows += (total_rows[name] - skipped_rows) / total_rows[name]
            r.files_read += s.files_total - s.files_skipped
            r.answers.append((answer[0], None if answer[1] is None else round(float(answer[1]), 2)))
    wrong = [n for n in tables if reads[n].answers != reads["rebuilt"].answers]
    if wrong:
        raise SystemExit(f"answers differ from the rebuilt table's on {wrong}")
    return reads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sf", type=float, default=0.1, help="TPC-H scale factor")
    parser.add_argument("--appends", type=int, default=10)
    parser.add_argument("--fraction", type=float, default=0.05, help="each append's rows, as a fraction of the base")
    parser.add_argument("--blocks", type=int, default=32, help="blocks of the base table")
    parser.add_argument("--layout", choices=("kd", "amoeba"), default="kd")
    parser.add_argument("--per-template", type=int, default=3, help="queries per template")
    parser.add_argument("--cache", default=os.path.join(ROOT, "benchmarks", ".data"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from benchmarks.layout_spark.tpch_data import denormalized
    from benchmarks.harness import session
    from skipstone import Skipstone
    from skipstone.layout import Amoeba, KdTree
    spark = session("skipstone-bench-appends")
    name = f"tpch-sf{args.sf:g}-{args.layout}"
    work = tempfile.mkdtemp(prefix="skipstone-bench-appends-")
    try:
        source = denormalized(spark, args.sf, args.cache, 64)
        base, *batches = split(spark, source, work, args.appends, args.fraction)
        base_rows = spark.read.parquet(base).count()
        # A tree splits a node of at least twice the target rows, so at exactly blocks x target rows
        # the median cuts' ties leave some nodes unsplit (fewer, larger blocks). 1.2 x target per
        # block: the base and every rebuild up to 1.5 x its rows have `blocks` blocks alike.
        block_rows = max(1, round(base_rows / (args.blocks * 1.2)))
        spec = (KdTree(block_rows=block_rows, columns=list(KD_COLUMNS)) if args.layout == "kd"
                else Amoeba(block_rows=block_rows))
        where = queries(args.seed, args.per_template)
        print(f"{name}: base {base_rows:,} rows, {args.appends} appends of {args.fraction:.0%}, target "
              f"{block_rows:,} rows per block, {len(where)} queries; tables in {work}", flush=True)

        def create(label: str, paths: list[str]):
            return Skipstone.create(spark, os.path.join(work, label), spark.read.parquet(*paths), layout=spec)

        started = time.perf_counter()
        tables = {"appended": create("appended", [base])}
        create_s = time.perf_counter() - started
        tables["compacted"] = create("compacted", [base])
        for t in (tables["appended"], tables["compacted"]):
            t.set_properties({"optimize.strategies": "unindexed,compaction"})
        tables["rebuilt"] = tables["appended"]  # at the start, the build is the rebuild
        points = [Point("0", base_rows, read_all(spark, tables, where), rebuild_s=create_s)]
        report(points[-1])
        for k, batch in enumerate(batches, start=1):
            rows = spark.read.parquet(batch)
            started = time.perf_counter()
            tables["appended"].append(rows)
            append_s = time.perf_counter() - started
            tables["compacted"].append(rows)
            started = time.perf_counter()
            compaction = tables["compacted"].optimize()
            compact_s = time.perf_counter() - started
            if k > 1:
                shutil.rmtree(os.path.join(work, f"rebuilt-{k - 1}"), ignore_errors=True)
            started = time.perf_counter()
            tables["rebuilt"] = create(f"rebuilt-{k}", [base, *batches[:k]])
            rebuild_s = time.perf_counter() - started
            total = sum(f.rows for f in tables["rebuilt"].current().files)
            points.append(Point(str(k), total, read_all(spark, tables, where), append_s, compact_s,
                                compaction.rows_rewritten if compaction else 0, rebuild_s))
            report(points[-1])
        started = time.perf_counter()
        last = tables["appended"].optimize()  # the appended table, compacted once after its last append
        points.append(Point(f"{len(batches)}, then compacted", total, read_all(spark, tables, where),
                            compact_s=time.perf_counter() - started, compact_rows=last.rows_rewritten if last else 0))
        report(points[-1])
        result = {"name": name, "sf": args.sf, "appends": args.appends, "fraction": args.fraction,
                  "base_rows": base_rows, "block_rows": block_rows, "layout": args.layout, "spec": spec.to_json(),
                  "queries": where,
                  "load_average": os.getloadavg(), "points": [asdict(p) for p in points]}
        os.makedirs(RESULTS, exist_ok=True)
        with open(os.path.join(RESULTS, f"appends-{name}.json"), "w") as f:
            json.dump(result, f, indent=1, default=str)
        print(markdown(points, len(where)))
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


def report(p: Point, note: str = "") -> None:
    parts = [f"{n} files {r.files_read}/{r.table_files} rows {r.rows:.3f} bytes {r.bytes:.3f} {r.query_s:.1f}s"
             for n, r in p.reads.items()]
    print(f"  append {p.append} {note}: " + "; ".join(parts) + f"; append {p.append_s:.1f}s compact {p.compact_s:.1f}s "
          f"rebuild {p.rebuild_s:.1f}s", flush=True)


def markdown(points: list[Point], queries: int) -> str:
    lines = ["| append | rows | files read (appended / compacted / rebuilt) | table files | rows read, fraction "
             "| bytes read, fraction | query s | append s | compact s (rows rewritten) | rebuild s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for p in points:
        r = [p.reads[n] for n in TABLES]
        trio = lambda f: " / ".join(f(x) for x in r)  # noqa: E731
        lines.append(f"| {p.append} | {p.rows:,} | {trio(lambda x: str(x.files_read))} | "
                     f"{trio(lambda x: str(x.table_files))} | {trio(lambda x: f'{x.rows / queries:.3f}')} | "
                     f"{trio(lambda x: f'{x.bytes / queries:.3f}')} | {trio(lambda x: f'{x.query_s:.1f}')} | "
                     f"{p.append_s:.1f} | {p.compact_s:.1f} ({p.compact_rows:,}) | {p.rebuild_s:.1f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
