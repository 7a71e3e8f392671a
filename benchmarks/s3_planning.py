"""Planning on S3: time and S3 requests per query over 10,000 small Parquet objects of the local
S3 server (docs/object-stores.md, "What planning costs on S3").

Three ways to plan a selective query (`id BETWEEN x AND x + 4`, one object of 10,000 holds it):

- Skipstone with its freshness check (`spark.skipstone.verifySkippedFiles=auto`, the default):
  the objects it would skip are confirmed unchanged by their ETag, from one listing;
- Skipstone trusting Spark's listing (`verifySkippedFiles=listing`), whose ETags it still compares;
- plain Spark without Skipstone, which plans every object.

Each query runs on a new DataFrame (so a new listing). Planning is the scan's "metadata time"
(listing the objects and, with Skipstone, skipping them); the whole query is timed too, and its
requests are S3A's own counters (LIST, HEAD, GET; S3A's classic input stream, whose GETs it
counts). Skipstone's settings are interleaved, medians reported; plain Spark, which opens every
object, runs once. Results go to benchmarks/results/s3_planning.json.

    make bench-s3        # python -m benchmarks.s3_planning [--files 10000] [--queries 7]
"""
from __future__ import annotations

import argparse
import io
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "stores"))
import s3_store  # noqa: E402

RESULTS = os.path.join(ROOT, "benchmarks", "results", "s3_planning.json")
ROWS_PER_FILE = 10
BUCKET = "bench"
SETTINGS = (("Skipstone, ETag check (auto)", True, "auto"),
            ("Skipstone, listing trusted (listing)", True, "listing"),
            ("Spark without Skipstone", False, "auto"))
COUNTERS = {"LIST": "object_list_request", "HEAD": "object_metadata_request", "GET": "action_http_get_request"}


def parquet_bytes(k: int) -> bytes:
    ids = list(range(k * ROWS_PER_FILE, (k + 1) * ROWS_PER_FILE))
    out = io.BytesIO()
    pq.write_table(pa.table({"id": pa.array(ids, pa.int64()), "v": pa.array([i * 0.5 for i in ids])}), out)
    return out.getvalue()


def start_server(port: int) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests", "stores", "s3_server.py"), "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return server
        except OSError:
            time.sleep(0.1)
    os.killpg(server.pid, signal.SIGTERM)
    raise SystemExit(f"the local S3 server did not listen on port {port}")


def upload(endpoint: str, files: int) -> float:
    import boto3
    from botocore.config import Config

    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=s3_store.ACCESS_KEY,
                          aws_secret_access_key=s3_store.SECRET_KEY,
                          config=Config(s3={"addressing_style": "path"}, max_pool_connections=16))
    client.create_bucket(Bucket=BUCKET)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda k: client.put_object(Bucket=BUCKET, Key=f"data/part-{k:05d}.parquet", Body=parquet_bytes(k)),
                      range(files)))
    return time.perf_counter() - t0


def session(endpoint: str, jars: list[str]) -> Any:
    import skipstone
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master("local[2]").appName("skipstone-s3-planning")
               .config("spark.ui.enabled", "false").config("spark.driver.memory", "4g")
               .config("spark.sql.session.timeZone", "UTC")
               # the plan as run, with the scan's metrics (no adaptive wrapper around it)
               .config("spark.sql.adaptive.enabled", "false")
               # S3A's classic stream counts its GETs; the default (analytics) stream's own client does not
               .config("spark.hadoop.fs.s3a.input.stream.type", "classic"))
    for key, value in s3_store.spark_conf(endpoint, jars).items():
        builder = builder.config(key, value)
    spark = skipstone.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def counters(spark: Any, uri: str) -> dict[str, int]:
    fs = spark._jvm.org.apache.hadoop.fs.Path(uri).getFileSystem(spark._jsc.hadoopConfiguration())
    stats = fs.getIOStatistics().counters()
    return {name: int(stats.get(key) or 0) for name, key in COUNTERS.items()}


def measured(spark: Any, uri: str, action: Any) -> tuple[Any, float, dict[str, int]]:
    before = counters(spark, uri)
    t0 = time.perf_counter()
    result = action()
    elapsed = (time.perf_counter() - t0) * 1000
    after = counters(spark, uri)
    return result, elapsed, {k: after[k] - before[k] for k in after}


def planning_ms(df: Any) -> float:
    """The scan's own "metadata time": listing the files and, with Skipstone, skipping them."""
    leaves = df._jdf.queryExecution().executedPlan().collectLeaves()
    for i in range(leaves.size()):
        node = leaves.apply(i)
        if node.metrics().contains("metadataTime"):
            return float(node.metrics().apply("metadataTime").value())
    return float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=7, help="planned queries per setting")
    args = parser.parse_args(argv)

    from skipstone import MinMax, Skipstone, last_query_stats

    jars = s3_store.fetch_jars()
    port = s3_store.free_port()
    endpoint = f"http://127.0.0.1:{port}"
    server = start_server(port)
    try:
        upload_s = upload(endpoint, args.files)
        print(f"uploaded {args.files} objects in {upload_s:.1f} s", flush=True)
        spark = session(endpoint, jars)
        root = f"s3a://{BUCKET}/data"
        t0 = time.perf_counter()
        Skipstone.for_path(spark, root).build(MinMax("id"))
        build_s = time.perf_counter() - t0
        print(f"indexed in {build_s:.1f} s", flush=True)

        rng = random.Random(7)
        runs: dict[str, list[tuple[float, float, int, dict[str, int]]]] = {name: [] for name, _, _ in SETTINGS}
        for q in range(args.queries + 1):  # the first round warms up and is not counted
            x = rng.randrange(0, args.files * ROWS_PER_FILE - 5)
            condition = f"id BETWEEN {x} AND {x + 4}"
            for name, enabled, verify in SETTINGS:
                if not enabled and q != 1:  # plain Spark opens every object: once is enough, and slow
                    continue
                spark.conf.set("spark.skipstone.enabled", str(enabled).lower())
                spark.conf.set("spark.skipstone.verifySkippedFiles", verify)
                df = spark.read.parquet(root).where(condition)  # a new DataFrame: a new listing
                rows, ms, requests = measured(spark, root, df.collect)
                assert sorted(r.id for r in rows) == list(range(x, x + 5)), name
                read = args.files - (last_query_stats(spark).files_skipped if enabled else 0)
                if q > 0:
                    runs[name].append((ms, planning_ms(df), read, requests))
                    print(f"{name}: {ms:.0f} ms, planning {planning_ms(df):.0f} ms, {read} files read, {requests}",
                          flush=True)
        spark.stop()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)

    rows = []
    for name, _, _ in SETTINGS:
        r = runs[name]
        rows.append({"setting": name, "files": args.files, "query_median_ms": statistics.median(x[0] for x in r),
                     "planning_median_ms": statistics.median(x[1] for x in r), "files_read": statistics.median(x[2] for x in r),
                     **{k: statistics.median(x[3][k] for x in r) for k in COUNTERS}})
    print(f"\n{args.files} objects, {args.queries} queries per setting (medians); upload {upload_s:.0f} s, "
          f"index build {build_s:.0f} s")
    print(f"{'setting':40} {'query ms':>9} {'planning ms':>12} {'files read':>10} {'LIST':>5} {'HEAD':>5} {'GET':>6}")
    for r in rows:
        print(f"{r['setting']:40} {r['query_median_ms']:9.0f} {r['planning_median_ms']:12.0f} {r['files_read']:10.0f} "
              f"{r['LIST']:5.0f} {r['HEAD']:5.0f} {r['GET']:6.0f}")
    with open(RESULTS, "w") as f:
        json.dump({"files": args.files, "upload_s": upload_s, "build_s": build_s, "settings": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
