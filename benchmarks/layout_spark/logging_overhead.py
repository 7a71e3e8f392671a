"""What logging the workload adds to a query on a managed table, in wall-clock time.

    python -m benchmarks.layout_spark.logging_overhead [--rows 2000000] [--pairs 40]

One table, one session; the same selective query (a changing literal) runs with logging on
and off in ABBA order, so warm-up and the neighbours' load favour neither. Logging happens on
Spark's listener thread after the query returned, so the query pays at most for the listener
competing for the cores; the report gives both medians and their relative difference.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

SWITCH = "spark.skipstone.workloadLog.enabled"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--pairs", type=int, default=40, help="on/off pairs (ABBA order)")
    args = parser.parse_args()

    from pyspark.sql import functions as F

    from benchmarks.harness import session
    from skipstone import Skipstone
    from skipstone.layout import Amoeba

    spark = session("skipstone-logging-overhead")
    df = spark.range(args.rows).select((F.col("id") * 7919 % args.rows).alias("a"), (F.col("id") % 97).alias("b"),
                                       F.col("id").alias("v"))
    path = os.path.join(tempfile.mkdtemp(prefix="skipstone-logging-"), "t")
    table = Skipstone.create(spark, path, df, layout=Amoeba(block_rows=args.rows // 32))

    def query(k: int) -> float:
        bound = (k * 7_919) % args.rows
        start = time.perf_counter()
        spark.sql(f"SELECT count(*), sum(v) FROM parquet.`{table.root}` WHERE a BETWEEN {bound} AND {bound + args.rows // 20}").collect()
        return time.perf_counter() - start

    for k in range(8):  # warm-up: JIT, caches
        query(k)
    times: dict[bool, list[float]] = {True: [], False: []}
    for pair in range(args.pairs):
        for logging in ((True, False) if pair % 2 == 0 else (False, True)):
            spark.conf.set(SWITCH, str(logging).lower())
            times[logging].append(query(100 + 2 * pair + logging))
    spark.conf.unset(SWITCH)
    logged = table.workload().count()
    on, off = statistics.median(times[True]), statistics.median(times[False])
    print(f"rows {args.rows:,}, files {len(table.current().files)}, pairs {args.pairs}, records logged {logged}")
    print(f"median query time: logging on {1000 * on:.1f} ms, off {1000 * off:.1f} ms, "
          f"overhead {100 * (on - off) / off:+.2f} %")
    print(f"mean query time:   logging on {1000 * statistics.mean(times[True]):.1f} ms, "
          f"off {1000 * statistics.mean(times[False]):.1f} ms")
    spark.stop()


if __name__ == "__main__":
    main()
