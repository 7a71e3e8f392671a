"""Calibrate ``SparkCost`` (``skipstone.layout.cost_model``) on Spark: the per-file cost of a
read and the fixed and per-byte cost of a rewrite, in bytes read.

    python -m benchmarks.layout_spark.calibrate_file_cost benchmarks/layout_spark/results/tpch-sf0.1-quick.json
    python -m benchmarks.layout_spark.calibrate_file_cost results.json --rewrites   # also times rewrites (minutes)

Reads: fits seconds = fixed + per_byte x bytes read + per_file x files read by least squares,
over every (method, query) of a `make bench-layout` run when it recorded them per query, else
over each method's totals (one equation per method: fewer points, a rougher answer). The
per-file cost in bytes is per_file / per_byte: the bytes Spark reads in the time it spends
opening one file.

Reads measured directly (`--reads`): queries over subsets of the TPC-H files in two cuts of
the same rows (`--blocks` files, and 8 times fewer, larger ones), so files and bytes vary apart
and the fit separates the cost of opening a file from the cost of reading its bytes; the bench
results are not needed then. Measure on a quiet machine: the load moves every coefficient.

Rewrites (`--rewrites`, benchmarks/layout_spark/rewrite_cost.py): a managed table of the same
TPC-H data has 1 to all of its blocks rewritten; seconds = fixed + per_byte x bytes. In the
unit of reads, a rewrite of b bytes costs c x (b + job_bytes) with c = rewrite per_byte / read
per_byte (Amoeba's write multiplier, measured) and job_bytes = fixed / rewrite per_byte; a
query's fixed seconds priced the same way are query_bytes. The result is written to results/calibration.json; cost_model.py's defaults come from it.

A read's bytes are priced as ``SparkCost`` prices them: the bytes of the columns a query reads
(its read share of each row, as a table's workload log records it), not of the files it opens.
The timed query reads three of the table's 25 columns, so the fits above, per byte of the
files, are divided by that share (``READ_COLUMNS``, measured from the Parquet footers):
``--refit`` recomputes the prices of results/calibration.json so, without timing anything.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# fractions of the table's blocks, interleaved: the machine's load drifts over all sizes
REWRITE_FRACTIONS = (1.0, 0.0, 0.5, 1 / 16, 1 / 4) * 2
READ_COLUMNS = ("l_extendedprice", "l_discount", "l_quantity")  # what the timed query reads (read_points)


def column_shares(directory: str) -> dict[str, float]:
    """Each column's share of the compressed bytes of the Parquet files in ``directory``: the
    measure a table's workload log takes of each query (the JVM's ``ReadShare``, from a managed
    table's largest file), taken here over every file of a plain directory, without Spark."""
    import pyarrow.parquet as pq

    sizes: dict[str, float] = {}
    for name in sorted(os.listdir(directory)):
        if name.endswith(".parquet"):
            meta = pq.ParquetFile(os.path.join(directory, name)).metadata
            for g in range(meta.num_row_groups):
                for c in range(meta.row_group(g).num_columns):
                    chunk = meta.row_group(g).column(c)
                    sizes[chunk.path_in_schema] = sizes.get(chunk.path_in_schema, 0.0) + chunk.total_compressed_size
    total = sum(sizes.values())
    return {c: v / total for c, v in sizes.items()}


def fit(result: dict) -> dict[str, float]:
    rows, seconds = [], []
    for run in result["methods"].values():
        if run.get("per_query_files"):
            for s, f, b in zip(run["per_query_s"], run["per_query_files"], run["per_query_bytes"]):
                rows.append((1.0, b, f))
                seconds.append(s)
        else:
            rows.append((float(result["queries"]), run["bytes_read"], run["files_read"]))
            seconds.append(run["query_s"])
    a, y = np.array(rows, dtype=np.float64), np.array(seconds)
    scale = a.max(axis=0)  # bytes and files differ by orders of magnitude: solve on scaled columns
    (fixed, per_byte, per_file), *_ = np.linalg.lstsq(a / scale, y, rcond=None)
    per_byte, per_file, fixed = per_byte / scale[1], per_file / scale[2], fixed / scale[0]
    return {"points": len(y), "fixed_s": float(fixed), "seconds_per_gb": float(per_byte * 1e9),
            "seconds_per_file": float(per_file),
            "file_bytes": float(per_file / per_byte) if per_byte > 0 else float("nan")}


def spark_cost(reads: dict[str, float], rewrites: dict[str, float], read_share: float) -> dict[str, float]:
    """SparkCost's parameters (and the policies' write multiplier) from the two fits, in bytes of
    the columns read: the reads' fit is per byte of the files, of which the query read ``read_share``.

    >>> cost = spark_cost({"seconds_per_gb": 3.0, "file_bytes": 1e6}, {"rewrite_seconds_per_gb": 300.0,
    ...                   "rewrite_fixed_s": 3.0}, read_share=0.2)
    >>> cost["file_bytes"], cost["write_multiplier"], cost["job_bytes"]
    (200000.0, 20.0, 10000000.0)
    >>> spark_cost({"seconds_per_gb": 3.0, "file_bytes": 1e6, "fixed_s": 0.3}, {"rewrite_seconds_per_gb": 300.0,
    ...            "rewrite_fixed_s": 3.0}, read_share=0.2)["query_bytes"]   # 0.3 s at 15 s per GB of columns
    20000000.0
    """
    read, write = reads["seconds_per_gb"] / read_share, rewrites["rewrite_seconds_per_gb"]
    return {"file_bytes": reads["file_bytes"] * read_share, "write_multiplier": write / read,
            "job_bytes": rewrites["rewrite_fixed_s"] / write * 1e9, "read_share": read_share,
            "query_bytes": reads.get("fixed_s", 0.0) / read * 1e9}


def read_share(scale: float, blocks: int) -> float:
    """The share of the calibration table's bytes the timed query reads (``READ_COLUMNS``)."""
    directory = os.path.join(ROOT, "benchmarks", ".data", f"lineitem-denormalized-sf{scale:g}-{blocks}")
    if not os.path.isdir(directory):
        raise SystemExit(f"no table in {directory}: run with --reads once to build it")
    shares = column_shares(directory)
    return sum(shares[c] for c in READ_COLUMNS)


def read_points(scale: float, blocks: int, repeats: int = 3) -> list[dict[str, float]]:
    """Seconds of the bench's query shape over random subsets of files of two sizes."""
    import random
    import time

    sys.path.insert(0, os.path.join(ROOT, "python"))
    from benchmarks.harness import session
    from benchmarks.layout_spark.tpch_data import denormalized

    spark = session("skipstone-calibrate-reads")
    try:
        cache = os.path.join(ROOT, "benchmarks", ".data")
        cuts = [denormalized(spark, scale, cache, blocks), denormalized(spark, scale, cache, max(1, blocks // 8))]
        rng, points = random.Random(0), []
        for _ in range(repeats):
            for directory in cuts:
                files = sorted(os.path.join(directory, n) for n in os.listdir(directory) if n.endswith(".parquet"))
                for count in sorted({1, max(1, len(files) // 8), max(1, len(files) // 2), len(files)}):
                    chosen = rng.sample(files, count)
                    spark.read.parquet(*chosen).createOrReplaceTempView("calibration_subset")
                    started = time.perf_counter()
                    spark.sql("SELECT count(*), sum(l_extendedprice * (1 - l_discount)) FROM calibration_subset "
                              "WHERE l_quantity >= 0").collect()
                    points.append({"files": count, "bytes": float(sum(os.path.getsize(f) for f in chosen)),
                                   "seconds": time.perf_counter() - started})
        return points
    finally:
        spark.stop()


def fit_reads(points: list[dict[str, float]]) -> dict[str, float]:
    a = np.array([(1.0, p["bytes"], p["files"]) for p in points], dtype=np.float64)
    y = np.array([p["seconds"] for p in points])
    scale = a.max(axis=0)
    (fixed, per_byte, per_file), *_ = np.linalg.lstsq(a / scale, y, rcond=None)
    per_byte, per_file, fixed = per_byte / scale[1], per_file / scale[2], fixed / scale[0]
    return {"points": len(y), "fixed_s": float(fixed), "seconds_per_gb": float(per_byte * 1e9),
            "seconds_per_file": float(per_file),
            "file_bytes": float(per_file / per_byte) if per_byte > 0 else float("nan")}


def rewrite_points(scale: float, blocks: int) -> list[dict[str, float]]:
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from benchmarks.harness import session
    from benchmarks.layout_spark.rewrite_cost import kd_table, measure_rewrites

    import tempfile
    spark = session("skipstone-calibrate-rewrites")
    try:
        table = kd_table(spark, scale, blocks, tempfile.mkdtemp(prefix="skipstone-calibrate-"))
        total = table.tree().block_count
        counts = [max(1, round(f * total)) for f in REWRITE_FRACTIONS]
        return measure_rewrites(spark, table, counts)
    finally:
        spark.stop()


def main() -> None:
    from benchmarks.layout_spark.rewrite_cost import fit_rewrites

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="*", help="JSON results of make bench-layout (reads; or --reads)")
    parser.add_argument("--reads", action="store_true", help="time reads of file subsets instead (a few minutes)")
    parser.add_argument("--rewrites", action="store_true", help="also time rewrites on Spark (a few minutes)")
    parser.add_argument("--sf", type=float, default=0.1)
    parser.add_argument("--blocks", type=int, default=64)
    parser.add_argument("--refit", action="store_true",
                        help="recompute results/calibration.json's prices from its fits, pricing bytes of columns read")
    args = parser.parse_args()
    if args.refit:
        path = os.path.join(ROOT, "benchmarks", "layout_spark", "results", "calibration.json")
        calibrated = json.load(open(path))
        calibrated["spark_cost"] = spark_cost(calibrated["reads"], calibrated["rewrites"],
                                              read_share(calibrated["scale"], calibrated["blocks"]))
        print(json.dumps(calibrated["spark_cost"], indent=1))
        with open(path, "w") as out:
            json.dump(calibrated, out, indent=1)
        return
    reads: dict = {}
    if args.reads:
        reads = fit_reads(read_points(args.sf, args.blocks))
        args.results = []
        print("measured reads", json.dumps(reads, indent=1))
    for path in args.results:
        reads = fit(json.load(open(path)))
        print(path, json.dumps(reads, indent=1))
    if args.rewrites:
        points = rewrite_points(args.sf, args.blocks)
        rewrites = fit_rewrites(points)
        calibrated = {"reads": reads, "reads_from": [os.path.relpath(p, ROOT) for p in args.results] or
                      [f"--reads --sf {args.sf:g} --blocks {args.blocks}"], "scale": args.sf, "blocks": args.blocks,
                      "load_average": os.getloadavg(),
                      "rewrites": rewrites, "rewrite_points": points,
                      "spark_cost": spark_cost(reads, rewrites, read_share(args.sf, args.blocks))}
        print(json.dumps({k: calibrated[k] for k in ("rewrites", "spark_cost")}, indent=1))
        with open(os.path.join(ROOT, "benchmarks", "layout_spark", "results", "calibration.json"), "w") as out:
            json.dump(calibrated, out, indent=1)


if __name__ == "__main__":
    sys.path.insert(0, ROOT)
    main()
