"""Driver-side cost of skipping: clause compilation + evaluation over N files' metadata.

Synthetic metadata (1k, 10k, 100k files, each a k-range of 1,000 values, a day of ts and a
string range) is published for a one-file dataset; each predicate is then evaluated over all
N metadata rows exactly as the wrapper does during a query (PlanningBenchmark in the benchmarks' jar).

    python benchmarks/clause_eval.py [--files 1000 10000 100000] [--runs 7] [--json out.json]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))

import skipstone  # noqa: E402
from skipstone import MinMax, Skipstone  # noqa: E402
from skipstone.session import jvm_entry  # noqa: E402

PREDICATES = {
    "k = v (selective)": "k = 4242424",
    "k BETWEEN (1% of files)": "k BETWEEN {lo} AND {hi}",
    "k IN 100 values": "k IN ({values})",
    "ts range OR s prefix": "ts < TIMESTAMP'2020-01-05' OR s >= 'x'",
    "NOT(k < c) AND unanswerable": "NOT (k < 500000) AND abs(k) > 3",
}


def instantiate(template: str, files: int) -> str:
    """A predicate for N files: the BETWEEN covers 1% of the files in the middle of the range."""
    middle = files * 500
    return template.format(lo=middle, hi=middle + files * 10,
                           values=", ".join(str(v * 7919) for v in range(100)))


def synthetic_metadata(root: str, files: int) -> pa.Table:
    start = dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)
    i = list(range(files))
    return pa.table({
        "path": [f"file:{root}/synthetic-{n:07d}.parquet" for n in i],
        "size": pa.array([1_000_000] * files, pa.int64()),
        "mtime": pa.array([1_700_000_000_000] * files, pa.int64()),
        "num_rows": pa.array([1000] * files, pa.int64()),
        "minmax_0_min": pa.array([n * 1000 for n in i], pa.int64()),
        "minmax_0_max": pa.array([n * 1000 + 999 for n in i], pa.int64()),
        "minmax_0_nulls": pa.array([0] * files, pa.int64()),
        "minmax_1_min": pa.array([start + dt.timedelta(days=n) for n in i], pa.timestamp("us", tz="UTC")),
        "minmax_1_max": pa.array([start + dt.timedelta(days=n, hours=23) for n in i], pa.timestamp("us", tz="UTC")),
        "minmax_1_nulls": pa.array([0] * files, pa.int64()),
        "minmax_2_min": [f"s{n:07d}" for n in i],
        "minmax_2_max": [f"s{n:07d}~" for n in i],
        "minmax_2_nulls": pa.array([0] * files, pa.int64()),
    })


def publish_synthetic(spark, ds: Skipstone, files: int) -> None:
    _, _, definition = ds._current()
    entry = jvm_entry(spark)
    staging = entry.newStagingDir(spark._jsparkSession, ds.root)
    local = staging.removeprefix("file:")
    os.makedirs(os.path.join(local, "table"))
    pq.write_table(synthetic_metadata(ds.root.removeprefix("file:"), files), os.path.join(local, "table", "part-0.parquet"))
    entry.publish(spark._jsparkSession, ds.root, staging, json.dumps(definition))


def setup_dataset(spark, folder: str) -> tuple[str, Skipstone]:
    """A one-file dataset with MinMax on k, ts, s: the definition the synthetic metadata uses."""
    root = os.path.join(folder, "clause-eval-data")
    os.makedirs(root, exist_ok=True)
    pq.write_table(pa.table({"k": pa.array([1], pa.int64()),
                             "ts": pa.array([dt.datetime(2020, 1, 1)], pa.timestamp("us", tz="UTC")),
                             "s": ["a"]}), os.path.join(root, "one.parquet"))
    ds = Skipstone.for_path(spark, root)
    ds.build(MinMax("k"), MinMax("ts"), MinMax("s"))
    return root, ds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", help="also write results here")
    args = parser.parse_args()

    from pyspark.sql import SparkSession

    from benchmarks.harness import bench_jar

    spark = skipstone.configure(SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
                                .config("spark.jars", bench_jar())
                                .config("spark.sql.session.timeZone", "UTC")).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    root, ds = setup_dataset(spark, tempfile.mkdtemp(prefix="skipstone-clauses-"))
    results = []
    print(f"{'files':>8}  {'predicate':<30} {'skipped':>9} {'median ms':>10} {'min ms':>8}")
    for files in args.files:
        publish_synthetic(spark, ds, files)
        for name, sql in PREDICATES.items():
            sql = instantiate(sql, files)
            filtered = spark.read.parquet(root).where(sql)
            out = json.loads(spark._jvm.io.skipstone.bench.PlanningBenchmark.run(
                spark._jsparkSession, ds.root, filtered._jdf, args.runs))
            results.append({"files": files, "predicate": name, **out})
            print(f"{files:>8}  {name:<30} {out['skipped']:>9} {out['median_ms']:>10.1f} {out['min_ms']:>8.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    spark.stop()


if __name__ == "__main__":
    main()
