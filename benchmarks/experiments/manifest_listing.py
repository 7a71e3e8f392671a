"""What listing a managed table's version from its manifest costs a query, by files.

    python -m benchmarks.experiments.manifest_listing [--files 10000,100000,1000000] [--runs 5]

Synthetic versions (none of the files need exist): the first query on a version builds Spark's
file statuses from the manifest; later queries on the same cached version reuse them.
Wall clock, driver only; prints a Markdown table.
"""
from __future__ import annotations

import argparse
import json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", default="10000,100000,1000000")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    from benchmarks.harness import session

    spark = session("skipstone-manifest-listing")
    bench = spark._jvm.io.skipstone.bench.PlanningBenchmark
    print("| files | first query on a version (ms) | each later query (ms) |\n|---|---|---|")
    for files in (int(f) for f in args.files.split(",")):
        out = json.loads(bench.manifestListing("file:/tmp/skipstone-synthetic-table", files, args.runs))
        print(f"| {files:,} | {out['first_query_ms']:.1f} | {out['later_query_ms']:.1f} |", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
