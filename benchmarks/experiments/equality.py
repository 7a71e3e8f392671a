"""Equality queries under ValueList, BloomFilter and Hybrid (the paper's Figure 8).

The web-log dataset in its geographic layout: each file holds the requests of a few nearby
countries, so a database name (``<country>_<resource>_db_<tenant>``) appears in few files.
Each index is built alone on db_name; four queries look for one database each.
"""
from __future__ import annotations

import json
import time
from typing import Any

import skipstone
from benchmarks import factors as F
from benchmarks.data import weblog
from benchmarks.harness import PLAIN, Setting, measure
from benchmarks.report import Section, table
from skipstone import Skipstone

DATABASES = ("us_orders_db_0042", "in_search_db_1234", "fr_payments_db_4999", "zz_none_db_0000")


def variants() -> list[tuple[str, Any]]:
    found = []
    # ValueList keeps every distinct value (up to 100,000 per file): the paper stores whole lists
    for label, kind, args in (("ValueList", "ValueList", (100_000,)), ("BloomFilter", "BloomFilter", ()),
                              ("Hybrid", "Hybrid", ())):
        if hasattr(skipstone, kind):
            found.append((label, getattr(skipstone, kind)("db_name", *args)))
    return found


def run(spark: Any, data_dir: str, quick: bool) -> list[Section]:
    if not variants():
        return [Section("equality", "_ValueList/BloomFilter/Hybrid are not available in this build._", [])]
    root = weblog.write(data_dir, layout="kd")
    spark.read.parquet(root).createOrReplaceTempView("weblog")
    ds = Skipstone.for_path(spark, root)
    repeats = 3 if quick else 5
    rows, data, eval_rows, factor_rows = [], [], [], []
    relation = f"parquet.`{root}`"
    all_rows = F.rows_per_file(spark, relation)
    relevant = {db: F.relevant_rows_per_file(spark, relation, f"db_name = '{db}'") for db in DATABASES}
    for label, index in variants():
        start = time.perf_counter()
        ds.build(index)
        build_s = time.perf_counter() - start
        planning = json.loads(spark._jvm.io.skipstone.bench.PlanningBenchmark.run(
            spark._jsparkSession, ds.root, spark.read.parquet(root).where(f"db_name = '{DATABASES[0]}'")._jdf, 5))
        per_file_us = planning["median_ms"] * 1000 / planning["files"]
        eval_rows.append([label, f"{build_s:.1f}", planning["files"], planning["median_ms"], per_file_us,
                          per_file_us * 100_000 / 1e6])
        for i, db in enumerate(DATABASES, 1):
            sql = (f"SELECT ts, city, cc, status, bytes, http_request, user_agent, db_name FROM weblog "
                   f"WHERE db_name = '{db}'")
            m = measure(spark, f"Q{i}", sql, (PLAIN, Setting(f"Skipstone {label}", True)), repeats)
            skip_ms = m.seconds[f"Skipstone {label}"] * 1000
            rows.append([f"Q{i} ({db})", label, f"{m.files_skipped} / {m.files_total}",
                         f"{m.bytes_skipped / max(m.bytes_total, 1):.1%}", m.seconds[PLAIN.name] * 1000, skip_ms,
                         f"{m.seconds[PLAIN.name] * 1000 / skip_ms:.1f}x", "yes" if m.identical else "**NO**"])
            m.extra["factors"] = F.factors(relevant[db], all_rows, m.rows_skipped)
            data.append({"index": label, "build_seconds": build_s, "planning": planning, "measurement": m})
        per_query = [d["measurement"].extra["factors"] for d in data if d["index"] == label]
        w = F.workload(per_query)
        if w:
            factor_rows.append([label, w.selectivity, w.layout, w.metadata, w.scanning])
    ds.drop()
    md = ("Web-log dataset, geographic layout (1,020 files). Each query selects 8 columns for one "
          f"`db_name`; Q4's database does not exist. Medians of {repeats} interleaved runs.\n\n") + table(
        ["query", "index", "files skipped", "bytes skipped", "Spark (ms)", "Skipstone (ms)", "speed-up", "identical"],
        rows) + "\n\nClause compilation and evaluation on the driver for Q1 (`PlanningBenchmark`, median of 5), " \
        "and what it extrapolates to at 100,000 files:\n\n" + table(
        ["index", "build (s)", "files", "evaluation (ms)", "per file (µs)", "at 100k files (s)"], eval_rows) + \
        "\n\nSkipping indicators over the queries that select rows (geometric means; s = l * m * sf):\n\n" + \
        table(["index", "selectivity s", "layout l", "metadata m", "scanning sf"], factor_rows)
    return [Section("equality", md, data)]
