"""How much `t.calibrate()` moves from one calibration to the next on the machine at hand.

    PYTHONPATH=python python -m benchmarks.layout_spark.calibration_spread [--calibrations 2] \
        [--rows 400000] [--blocks 16]

Creates a managed table of generated rows (an id, a UUID and two doubles; a k-d tree of
``--blocks`` blocks) in a scratch directory, calibrates it ``--calibrations`` times in one Spark
session, and prints each calibration's prices and timings (or why it refused to price) and their
spread (min-max). Run it more than once to see how a new session's first calibration differs
from the next ones.
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from typing import Any

# name, unit, how to read it from a Calibration
MEASURES: tuple[tuple[str, str, Any], ...] = (
    ("c (write multiplier)", "", lambda c: c.prices.write_multiplier),
    ("file_bytes", "MB", lambda c: c.prices.file_bytes / 1e6),
    ("per file", "ms", lambda c: c.seconds_per_file * 1e3),
    ("job_bytes", "MB", lambda c: c.prices.job_bytes / 1e6),
    ("per job", "s", lambda c: c.job_seconds),
    ("query_bytes", "MB", lambda c: c.prices.query_bytes / 1e6),
    ("per query", "s", lambda c: c.query_seconds),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calibrations", type=int, default=2)
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--blocks", type=int, default=16)
    args = parser.parse_args()

    from benchmarks.harness import session
    from skipstone import Skipstone
    from skipstone.errors import SkipstoneError
    from skipstone.layout import KdTree

    spark = session("skipstone-calibration-spread")
    work = tempfile.mkdtemp(prefix="skipstone-calibration-spread-")
    try:
        df = spark.range(args.rows).selectExpr("id", "uuid() AS u", "rand(1) AS x", "rand(2) * 1000 AS y")
        table = Skipstone.create(spark, os.path.join(work, "t"), df,
                                 layout=KdTree(block_rows=args.rows / args.blocks, columns=["x", "y"]))
        size = sum(f.size for f in table.current().files)
        print(f"{args.rows:,} rows, {size / 1e6:.0f} MB, "
              f"{table.tree().block_count} blocks; load average {os.getloadavg()[0]:.1f}", flush=True)
        print("| # | seconds | " + " | ".join(f"{n} ({u})" if u else n for n, u, _ in MEASURES) + " |")
        print("|---|---|" + "---|" * len(MEASURES), flush=True)
        found = []
        for k in range(1, args.calibrations + 1):
            started = time.perf_counter()
            try:
                c = table.calibrate()
            except SkipstoneError as refused:  # timings too noisy to price a byte: a result too
                print(f"| {k} | {time.perf_counter() - started:.0f} | refused: {refused} |", flush=True)
                continue
            seconds = time.perf_counter() - started
            found.append(c)
            print(f"| {k} | {seconds:.0f} | " + " | ".join(f"{read(c):.3g}" for _, _, read in MEASURES) + " |",
                  flush=True)
        if not found:
            return
        print("| spread | | " + " | ".join(f"{min(read(c) for c in found):.3g}-{max(read(c) for c in found):.3g}"
                                          for _, _, read in MEASURES) + " |")
        print(f"load average at the end {os.getloadavg()[0]:.1f}")
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
