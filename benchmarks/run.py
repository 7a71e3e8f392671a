"""`make bench-quick` / `make bench`: run the experiments, update docs/benchmarks.md.

    python -m benchmarks.run [--quick] [--only selective planning ...] [--data-dir DIR]
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

EXPERIMENTS = ["selective", "planning", "scale", "centralized", "equality", "geo_udf", "patterns", "indexing", "flights"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repeats (under 10 minutes here)")
    parser.add_argument("--only", nargs="+", choices=EXPERIMENTS, help="run only these experiments")
    parser.add_argument("--data-dir", default=os.path.join(ROOT, "benchmarks", ".data"),
                        help="where generated datasets are cached")
    args = parser.parse_args()

    from benchmarks import report
    from benchmarks.harness import session

    spark = session()
    for name in args.only or EXPERIMENTS:
        start = time.perf_counter()
        print(f"== {name}", flush=True)
        module = importlib.import_module(f"benchmarks.experiments.{name}")
        report.write(module.run(spark, args.data_dir, args.quick))  # each experiment lands as it ends
        print(f"   {time.perf_counter() - start:.0f} s", flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
