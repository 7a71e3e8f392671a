"""What evaluating a version as a Spark job over its metadata table costs a query, by files.

    python -m benchmarks.experiments.distributed_path [--files 100000,1000000]

Synthetic metadata (benchmarks/scale_metadata.py, three MinMax indexes) published as a real
version, then `ScaleBenchmark`'s prune of a listing of every file with the version left to
Spark (`spark.skipstone.distributedEvaluation.minFiles` = 0), for the two selective predicates
of the scale benchmark. Wall clock, one run each; prints a Markdown table.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", default="100000,1000000")
    parser.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "skipstone-distributed-path"))
    args = parser.parse_args()

    from benchmarks.harness import session
    from benchmarks.scale_metadata import SELECTIVE, empty_files, predicate, publish, setup_dataset

    spark = session("skipstone-distributed-path")
    os.makedirs(args.dir, exist_ok=True)
    ds = setup_dataset(spark, args.dir)
    verify = empty_files(args.dir, 2000)
    bench = spark._jvm.io.skipstone.bench.ScaleBenchmark
    print("| files | predicate | skipped | distributed evaluate + prune (ms) | skips what the driver path skips | load average |\n"
          "|---|---|---|---|---|---|")
    for files in (int(f) for f in args.files.split(",")):
        publish(spark, ds, files)
        for name, template in SELECTIVE.items():
            out = json.loads(bench.run(spark._jsparkSession, ds.root, predicate(template, files), 1, verify))
            same = "yes" if out["distributed_skipped"] == out["skipped"] else "**NO**"
            print(f"| {files:,} | {name} | {out['skipped']:,} | {out['distributed_evaluate_prune_ms']:,.0f} | {same} | "
                  f"{os.getloadavg()[0]:.1f} |", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
