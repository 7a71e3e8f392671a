"""Point lookups on a Delta Lake table: Delta's own skipping alone, and with Skipstone's indexes.

TPC-H lineitem (scale factor 0.1 by default, `tpchgen-cli`) is written by Delta into a few
hundred files, hash-distributed by ``l_suppkey`` (as a writer bucketing by supplier would), so
each file holds a handful of suppliers over the whole key range, and ``l_partkey`` in any order.
Delta's min/max statistics can then rule out almost no file for ``l_suppkey = x`` or
``l_partkey = x``: Skipstone's ValueList(l_suppkey) and BloomFilter(l_partkey) can. Each lookup
runs with Skipstone off (Delta alone: its partition pruning and stats skipping) and on, the two
interleaved and their order alternated, and is reported as files read and wall-clock ratios.

Runs on the Spark Delta supports (docs/delta-sources.md)::

    make bench-delta-source                      # SF 0.1, 200 files
    make bench-delta-source DELTA_BENCH_FLAGS="--scale 1 --lookups 20 --repeats 5"   # the docs' numbers
    python -m benchmarks.layout_spark.peer_runtime run -m benchmarks.delta_source --scale 0.1 --files 200
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

import skipstone
from benchmarks.layout_spark.peer_runtime import DELTA, delta_session_conf
from benchmarks.layout_spark.tpch_data import generated
from skipstone import BloomFilter, Skipstone, ValueList

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".cache", "delta-source")
RESULTS = os.path.join(ROOT, "benchmarks", "results", "delta_source.json")


@dataclass(frozen=True)
class Lookup:
    index: str          # the Skipstone index that answers it
    where: str
    rows: int
    files_delta: int    # files Delta's planning keeps (what Delta alone reads)
    files_skipstone: int
    seconds_delta: float    # median wall clock, Skipstone off
    seconds_skipstone: float


def session() -> Any:
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master("local[2]").appName("skipstone-delta-source")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.memory", "3g").config("spark.sql.session.timeZone", "UTC"))
    for key, value in delta_session_conf().items():
        builder = builder.config(key, value)
    spark = skipstone.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def delta_lineitem(spark: Any, scale: float, files: int) -> str:
    """lineitem as a Delta table of ``files`` files, written once into the cache."""
    path = os.path.join(CACHE, f"lineitem-sf{scale:g}-{files}")
    if not os.path.exists(os.path.join(path, "_delta_log")):
        source = os.path.join(generated(scale, CACHE), "lineitem.parquet")
        (spark.read.parquet(source).repartition(files, "l_suppkey")
         .write.format("delta").mode("overwrite").save(path))
    return path


def timed(spark: Any, sql: str, skipping: bool) -> tuple[float, int, Any]:
    spark.conf.set("spark.skipstone.enabled", str(skipping).lower())
    start = time.perf_counter()
    rows = spark.sql(sql).collect()
    return time.perf_counter() - start, len(rows), skipstone.last_query_stats(spark) if skipping else None


def sample_keys(spark: Any, table: str, column: str, n: int, rng: random.Random) -> list[int]:
    """``n`` distinct values of ``column``, drawn by ``rng`` from the sorted distinct ones (a
    column's distinct values alone: 200,000 part keys at SF 1, not 800,000 pairs of keys)."""
    values = sorted(r[0] for r in spark.read.format("delta").load(table).select(column).distinct().collect())
    return rng.sample(values, n)


def measure(spark: Any, table: str, index: str, where: str, repeats: int) -> Lookup:
    sql = f"SELECT * FROM delta.`{table}` WHERE {where}"
    off, on, stats, rows = [], [], None, 0
    for r in range(repeats):
        # interleaved, the order alternated: neither side always runs on a warmer cache
        for skipping in ((False, True) if r % 2 == 0 else (True, False)):
            seconds, rows, st = timed(spark, sql, skipping)
            (on if skipping else off).append(seconds)
            stats = st or stats
    (d,) = stats.per_dataset
    return Lookup(index, where, rows, d.files_total, d.files_total - d.files_skipped,
                  statistics.median(off), statistics.median(on))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--lookups", type=int, default=8, help="lookups per index")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each lookup, each way")
    args = parser.parse_args(argv)

    spark = session()
    table = delta_lineitem(spark, args.scale, args.files)
    start = time.perf_counter()
    Skipstone.for_path(spark, table, format="delta").build(BloomFilter("l_partkey"), ValueList("l_suppkey"))
    build_s = time.perf_counter() - start

    rng = random.Random(7)
    parts = sample_keys(spark, table, "l_partkey", args.lookups + 1, rng)
    suppliers = sample_keys(spark, table, "l_suppkey", args.lookups + 1, rng)
    # one untimed lookup each way first: the first query of a session pays for loading classes,
    # Delta's snapshot and Skipstone's metadata, which later ones find cached
    warm_up = f"SELECT * FROM delta.`{table}` WHERE l_partkey = {parts.pop()} OR l_suppkey = {suppliers.pop()}"
    for skipping in (False, True):
        timed(spark, warm_up, skipping)
    load_before = os.getloadavg()
    lookups = [measure(spark, table, "BloomFilter(l_partkey)", f"l_partkey = {k}", args.repeats) for k in parts]
    lookups += [measure(spark, table, "ValueList(l_suppkey)", f"l_suppkey = {k}", args.repeats) for k in suppliers]
    load_after = os.getloadavg()
    spark_version = spark.version
    spark.stop()

    print(f"lineitem SF {args.scale:g} as Delta {DELTA} on Spark {spark_version}, {args.files} files; "
          f"index build {build_s:.1f} s; "
          f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after, {os.cpu_count()} cores")
    print("| index | lookups | files read, Delta alone | with Skipstone | files ratio | s, Delta alone | "
          "s, with Skipstone | time ratio |")
    print("|---|---|---|---|---|---|---|---|")
    summary = []
    for index in ("BloomFilter(l_partkey)", "ValueList(l_suppkey)"):
        mine = [x for x in lookups if x.index == index]
        files_delta = sum(x.files_delta for x in mine) / len(mine)
        files_ours = sum(x.files_skipstone for x in mine) / len(mine)
        s_delta = statistics.median(x.seconds_delta for x in mine)
        s_ours = statistics.median(x.seconds_skipstone for x in mine)
        summary.append({"index": index, "files_delta": files_delta, "files_skipstone": files_ours,
                        "seconds_delta": s_delta, "seconds_skipstone": s_ours})
        print(f"| {index} | {len(mine)} | {files_delta:.1f} | {files_ours:.1f} | {files_ours / files_delta:.3f} | "
              f"{s_delta:.3f} | {s_ours:.3f} | {s_ours / s_delta:.2f} |")
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "w") as f:
        json.dump({"scale": args.scale, "files": args.files, "spark": spark_version, "delta": DELTA,
                   "repeats": args.repeats, "build_seconds": build_s,
                   "load_average": [load_before[0], load_after[0]], "cores": os.cpu_count(),
                   "summary": summary, "lookups": [asdict(x) for x in lookups]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
