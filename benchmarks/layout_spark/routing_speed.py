"""How fast rows are routed to a tree's blocks on Spark, and what a whole-table relayout costs.

    python -m benchmarks.layout_spark.routing_speed [--sf 1] [--repeats 2]

On denormalized TPC-H lineitem (`tpch_data.py`, 256 files): a k-d tree over two columns (256
blocks) is built on a sample; then, wall clock, each ``--repeats`` times: the files read whole
into Spark's no-op sink; the same with each row's block added (`LayoutRouting.withBlock`); that
shuffled by block as a table write shuffles it; and a managed table's `OPTIMIZE ... LAYOUT KD BY`
over other columns (read, route, shuffle, write, skipping metadata, commit).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from typing import Any, Callable

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(name: str, run: Callable[[], Any], repeats: int) -> None:
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        print(f"  {name}: {time.perf_counter() - started:.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--cache", default=os.path.join(ROOT, "benchmarks", ".data"))
    args = parser.parse_args()

    from pyspark.sql import DataFrame

    from benchmarks.harness import session
    from benchmarks.layout_spark.tpch_data import denormalized
    from skipstone import Skipstone
    from skipstone.layout import KdTree
    from skipstone.table.sample import draw_sample

    spark = session("skipstone-bench-routing")
    df = spark.read.parquet(denormalized(spark, args.sf, args.cache, 256))
    rows = df.count()
    block_rows = rows // 256
    tree = KdTree(columns=["c_acctbal", "l_receiptdate"], block_rows=block_rows).build(
        draw_sample(df, df.columns, rows, 50_000, seed=1), block_rows, rows)
    jvm = spark._jvm
    layout = jvm.io.skipstone.layout.LayoutDocument.parse(json.dumps(tree.to_json()))
    routed = DataFrame(jvm.io.skipstone.layout.LayoutRouting.withBlock(df._jdf, layout, "block"), spark)
    print(f"{rows:,} rows, {len(df.columns)} columns, {tree.block_count} blocks; load average "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    noop = lambda frame: frame.write.format("noop").mode("overwrite").save()  # noqa: E731
    timed("read -> no-op sink", lambda: noop(df), args.repeats)
    timed("read, route -> no-op sink", lambda: noop(routed), args.repeats)
    timed("read, route, shuffle by block -> no-op sink", lambda: noop(routed.repartition(257, "block")), args.repeats)
    work = tempfile.mkdtemp(prefix="skipstone-bench-routing-")
    try:
        root = os.path.join(work, "t")
        Skipstone.create(spark, root, df, layout=KdTree(columns=["c_acctbal", "l_receiptdate"], block_rows=block_rows))
        for i in range(args.repeats):
            columns = ("l_extendedprice, l_discount", "c_acctbal, l_receiptdate")[i % 2]
            timed(f"OPTIMIZE LAYOUT KD BY ({columns})",
                  lambda: spark.sql(f"OPTIMIZE parquet.`{root}` LAYOUT KD BY ({columns})").collect(), 1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        spark.stop()


if __name__ == "__main__":
    main()
