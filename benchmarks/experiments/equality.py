"""Equality queries under ValueList, BloomFilter and Hybrid (the paper's Figure 8).

The web-log dataset in its geographic layout: each file holds the requests of a few nearby
countries, so a database name (``<country>_<resource>_db_<tenant>``) appears in few files.
Each index is built alone on db_name; four queries look for one database each.
"""
from __future__ import annotations

import time
from typing import Any

import skipstone
from benchmarks.data import weblog
from benchmarks.harness import PLAIN, Setting, WARM, measure
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
    rows, data = [], []
    for label, index in variants():
        start = time.perf_counter()
        ds.build(index)
        build_s = time.perf_counter() - start
        for i, db in enumerate(DATABASES, 1):
            sql = (f"SELECT ts, city, cc, status, bytes, http_request, user_agent, db_name FROM weblog "
                   f"WHERE db_name = '{db}'")
            m = measure(spark, f"Q{i}", sql, (PLAIN, Setting(f"Skipstone {label}", True)), repeats)
            skip_ms = m.seconds[f"Skipstone {label}"] * 1000
            rows.append([f"Q{i} ({db})", label, f"{m.files_skipped} / {m.files_total}",
                         f"{m.bytes_skipped / max(m.bytes_total, 1):.1%}", m.seconds[PLAIN.name] * 1000, skip_ms,
                         f"{m.seconds[PLAIN.name] * 1000 / skip_ms:.1f}x", "yes" if m.identical else "**NO**"])
            data.append({"index": label, "build_seconds": build_s, "measurement": m})
    ds.drop()
    md = ("Web-log dataset, geographic layout (1,020 files). Each query selects 8 columns for one "
          f"`db_name`; Q4's database does not exist. Medians of {repeats} interleaved runs.\n\n") + table(
        ["query", "index", "files skipped", "bytes skipped", "Spark (ms)", "Skipstone (ms)", "speed-up", "identical"],
        rows)
    return [Section("equality", md, data)]
