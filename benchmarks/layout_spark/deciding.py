"""`make bench-deciding`: what one decision of the adaptive policy costs as the workload log grows.

    python -m benchmarks.layout_spark.deciding [--lengths 400,2400,7200] [--calls 5] [--every 50]
                                               [--per-phase 400] [--profile N]

One managed table (``--rows`` synthetic rows over six columns, a k-d tree on the first) and a
workload log that grows in phases of ``--per-phase`` queries, each phase filtering a different
pair of columns (as `shifting.py`'s phases do). The log is written as the JVM writes it (one
file per burst, here one per query): a real query's record is the template, its time, version
and predicate replaced. At each length, ``--calls`` decisions of ``AutoColumns`` (the shifting
benchmark's ``auto``), each after ``--every`` new queries, alternate between the two ways of
reading the log, so that the machine's load favours neither:

- ``incremental``: ``plan()`` as an optimizer calls it: the table's log read only after what an
  earlier call read, the template runs extended with the new queries only;
- ``full``: the same call after forgetting what was read (``logged_workload.forget``): the
  whole log read and its runs recomputed, which is what every call did before (though with the
  JVM's file cache warm, and no Spark job past 5,000 files: to compare with the code before this
  change, run this script with PYTHONPATH at an older checkout), and what a compacted or
  rewritten log still costs.

Both must decide the same (the benchmark checks it). ``--profile N`` instead prints a cProfile
of one full and one incremental decision at N logged queries.
"""
from __future__ import annotations

import argparse
import cProfile
import importlib.util
import io
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
import uuid
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

# Code from before the driver kept what it read (run with PYTHONPATH at an older checkout, for the
# "before" numbers) has no logged_workload: there both columns are its one, whole-log path.
KEEPS_LOG = importlib.util.find_spec("skipstone.table.logged_workload") is not None

COLUMNS = ["a", "b", "c", "d", "e", "f"]
PHASES = [("a", "b"), ("c", "d"), ("e", "f")]  # the columns each phase filters, in turn


class SyntheticLog:
    """Appends logged queries to a table's workload log, in the JVM's record format: a real
    record (``template``) with its time, version and predicate replaced."""

    def __init__(self, root: str, template: dict[str, Any], rows: int, per_phase: int, seed: int = 0) -> None:
        import numpy as np

        self.dir = os.path.join(root.replace("file:", ""), "_skipstone", "workload")
        os.makedirs(self.dir, exist_ok=True)
        self.template, self.rows, self.per_phase = template, rows, per_phase
        self.rng = np.random.default_rng(seed)
        self.count = 0
        self.time = int(template["time"]) + 1

    def predicate(self, position: int) -> dict[str, Any]:
        first, second = PHASES[(position // self.per_phase) % len(PHASES)]
        low, width = self.rng.uniform(0, 0.9), self.rng.uniform(0.01, 0.1)
        return {"and": [{"column": first, "op": ">=", "value": round(low * self.rows)},
                        {"column": first, "op": "<", "value": round((low + width) * self.rows)},
                        {"column": second, "op": "<", "value": round(self.rng.uniform(0.05, 0.5) * self.rows)}]}

    def grow(self, to: int) -> None:
        """Logs queries until the log holds ``to`` (one file each, as bursts of one query)."""
        while self.count < to:
            self.time += 1
            record = dict(self.template, time=self.time, predicate=json.dumps(self.predicate(self.count),
                                                                              separators=(",", ":")))
            with open(os.path.join(self.dir, f"{self.time}-{uuid.uuid4()}.json"), "w") as out:
                out.write(json.dumps(record, separators=(",", ":")) + "\n")
            self.count += 1


def timed_plan(spark: Any, table: Any, policy: Any, full: bool) -> tuple[float, str | None]:
    """One decision's wall-clock seconds and its description (None: no change). ``full`` reads the
    log whole, then puts back what the driver kept, so that the next incremental decision reads
    the same new records as it would have."""
    from skipstone.table.optimize import plan

    base = table.current()
    before = None
    if full and KEEPS_LOG:
        from skipstone.table import logged_workload

        before = logged_workload.kept(base.root)
        logged_workload.forget(base.root)
    started = time.perf_counter()
    planned = plan(spark, base, None, policy)
    seconds = time.perf_counter() - started
    if before is not None:
        logged_workload.keep(before)
    return seconds, None if planned is None else planned.change.description


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--lengths", default="400,2400,7200", help="logged queries at which decisions are timed")
    parser.add_argument("--calls", type=int, default=5, help="decisions of each kind at each length")
    parser.add_argument("--every", type=int, default=50, help="new queries logged before each decision")
    parser.add_argument("--per-phase", type=int, default=400, help="queries per phase of the synthetic log")
    parser.add_argument("--window", type=int, default=100, help="AutoColumns' window (the shifting benchmark's)")
    parser.add_argument("--profile", type=int, help="profile one decision of each kind at this log length")
    args = parser.parse_args()

    from pyspark.sql import functions as F

    from benchmarks.harness import session
    from skipstone import Skipstone
    from skipstone.layout import AutoColumns, KdTree

    spark = session("skipstone-deciding")
    n = args.rows
    df = spark.range(n).select(*[(F.col("id") * p % n).alias(c) for c, p in zip(COLUMNS, (1, 7919, 104729, 31, 4099, 65537))])
    path = os.path.join(tempfile.mkdtemp(prefix="skipstone-deciding-"), "t")
    table = Skipstone.create(spark, path, df, layout=KdTree(block_rows=n // 32, columns=["a"]))
    spark.sql(f"SELECT count(*) FROM parquet.`{table.root}` WHERE a < 10").collect()
    assert table.workload().count() == 1  # flushes the writer
    log_dir = os.path.join(table.root.replace("file:", ""), "_skipstone", "workload")
    first = next(f for f in os.listdir(log_dir) if f.endswith(".json") and not f.startswith("."))
    with open(os.path.join(log_dir, first)) as written:
        template = json.loads(written.readline())  # the one real record, as the JVM wrote it
    log = SyntheticLog(table.root, template, n, args.per_phase)
    log.count = 1
    policy = AutoColumns(window=args.window)

    if args.profile:
        log.grow(args.profile)
        for full in (True, False):
            timed_plan(spark, table, policy, full=True)  # warm: the JVM's file cache, the parsed predicates
            log.grow(log.count + args.every)
            profile = cProfile.Profile()
            profile.enable()
            seconds, _ = timed_plan(spark, table, policy, full)
            profile.disable()
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(30)
            print(f"=== {'full' if full else 'incremental'} decision at {log.count} logged queries: {seconds:.3f} s")
            print(out.getvalue())
        return

    print(f"rows {n:,}, {len(table.current().files)} files, AutoColumns(window={args.window}), a decision every "
          f"{args.every} queries, phases of {args.per_phase}" +
          ("" if KEEPS_LOG else "; code without logged_workload: both columns read the whole log"))
    print("logged queries | full read (s/call, median) | incremental (s/call, median) | full / incremental")
    rows = []
    for length in [int(x) for x in args.lengths.split(",")]:
        log.grow(length)
        timed_plan(spark, table, policy, full=False)  # catch up: the reads before this length are not timed
        times: dict[bool, list[float]] = {True: [], False: []}
        for call in range(args.calls):  # both on the same log, in ABBA order: each warms the caches for the other
            log.grow(log.count + args.every)
            decided = {}
            for full in ((False, True) if call % 2 == 0 else (True, False)):
                seconds, decided[full] = timed_plan(spark, table, policy, full)
                times[full].append(seconds)
            if decided[True] != decided[False]:
                raise AssertionError(f"at {log.count} logged queries the full read decided {decided[True]!r}, "
                                     f"the incremental {decided[False]!r}")
        full_s, inc_s = statistics.median(times[True]), statistics.median(times[False])
        rows.append((length, full_s, inc_s))
        print(f"{length:>14} | {full_s:>26.3f} | {inc_s:>28.3f} | {full_s / inc_s:.1f}x", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
