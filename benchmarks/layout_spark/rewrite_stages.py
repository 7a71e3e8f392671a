"""Where a rewrite's time goes: the Spark jobs of one whole-table rewrite of a managed table, timed.

    python -m benchmarks.layout_spark.rewrite_stages [--sf 1] [--blocks 256] [--rewrites 2] [--baseline]

A layout change is one ``TableTransaction``: read the replaced files, route each row to its new
block, shuffle the rows to one task per block, write the files, then index and commit them. The
calibration (``calibrate_file_cost --rewrites``) prices the whole as a fixed cost plus a cost per
byte; this says which of those steps the seconds are spent in, which is what a cheaper rewrite
has to change. A k-d table of the denormalized TPC-H data (the one ``make bench-layout-shifting``
leaves in benchmarks/.data) has every block rewritten ``--rewrites`` times (new ids, the same
rows; the first warms the JVM and is not reported), and each Spark job the last one ran is
printed with its seconds, tasks and call site, from Spark's status store. ``--baseline`` also
times plain Spark on the same rows, twice each, interleaved: a write of them as they are read (no
shuffle), a hash repartition into as many files as the rewrite writes, then a write (the floor of
any re-layout on Spark: every row moves), and a scan of every column. Wall clock, local[2].
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def jobs_since(spark: Any, since_ms: float) -> list[dict[str, Any]]:
    """The Spark jobs submitted since ``since_ms`` (epoch milliseconds): id, seconds, tasks, call site."""
    jobs, listed = [], spark.sparkContext._jsc.sc().statusStore().jobsList(None).iterator()
    while listed.hasNext():
        job = listed.next()
        submitted = job.submissionTime().get().getTime()
        if submitted < since_ms:
            continue
        completed = job.completionTime().get().getTime() if job.completionTime().isDefined() else submitted
        jobs.append({"job": job.jobId(), "seconds": (completed - submitted) / 1e3, "tasks": job.numTasks(),
                     "site": job.name()})
    return sorted(jobs, key=lambda j: j["job"])


def baseline(spark: Any, df: Any, files: int, scratch: str) -> list[tuple[str, float]]:
    """Plain Spark on ``df``'s rows (the table's current version): seconds to write them unshuffled, shuffled into ``files`` files, and to scan them."""
    from pyspark.sql import functions as F

    steps = (("write as read (no shuffle)", lambda out: df.write.mode("overwrite").parquet(out)),
             (f"hash repartition into {files} files + write",
              lambda out: df.repartition(files, F.hash(*df.columns)).write.mode("overwrite").parquet(out)),
             ("scan every column", lambda out: df.selectExpr("sum(hash(*))").collect()))
    timed = []
    for _ in range(2):
        for name, step in steps:
            started = time.perf_counter()
            step(os.path.join(scratch, "baseline"))
            timed.append((name, time.perf_counter() - started))
    return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--blocks", type=int, default=256)
    parser.add_argument("--rewrites", type=int, default=2, help="whole-table rewrites; the last is reported")
    parser.add_argument("--baseline", action="store_true", help="also time plain Spark's write and shuffle of the rows")
    args = parser.parse_args()

    sys.path.insert(0, os.path.join(ROOT, "python"))
    from benchmarks.harness import session
    from benchmarks.layout_spark.rewrite_cost import kd_table, measure_rewrites

    spark = session("skipstone-rewrite-stages")
    try:
        scratch = tempfile.mkdtemp(prefix="skipstone-stages-")
        table = kd_table(spark, args.sf, args.blocks, scratch)
        blocks = table.tree().block_count
        for _ in range(max(0, args.rewrites - 1)):
            measure_rewrites(spark, table, [blocks])
        started = time.time() * 1e3
        measure_rewrites(spark, table, [blocks])
        jobs = jobs_since(spark, started)
        print(f"the jobs of the last rewrite ({blocks} blocks; wall clock, local[2]):")
        for job in jobs:
            print(f"  job {job['job']:4d}  {job['seconds']:6.2f} s  {job['tasks']:4d} tasks  {job['site']}")
        print(f"  the jobs' seconds: {sum(j['seconds'] for j in jobs):.1f}")
        if args.baseline:
            print("plain Spark on the same rows (two rounds, interleaved):")
            for name, seconds in baseline(spark, table.read(), len(table.current().files), scratch):
                print(f"  {name}: {seconds:.1f} s")
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.path.insert(0, ROOT)
    main()
