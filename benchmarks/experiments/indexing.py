"""Indexing time and metadata size per index type (the paper's Table II).

Each index is built alone on the web-log dataset (time layout, 1,024 files, 2,000,000 rows),
then the size of its metadata version is measured on disk.
"""
from __future__ import annotations

import os
import time
from typing import Any, Callable

import skipstone
from benchmarks.data import weblog
from benchmarks.report import Section, table
from skipstone import MinMax, Skipstone


def candidates() -> list[tuple[str, Callable[[], Any], dict[str, Any]]]:
    """(label, index factory, build options); kinds this version lacks are left out."""
    found = [
        ("MinMax(ts), from footers", lambda: MinMax("ts"), {}),
        ("MinMax(ts), scanning", lambda: MinMax("ts"), {"use_footers": False}),
        ("MinMax(lat) (double: scanned)", lambda: MinMax("lat"), {}),
        ("MinMax(db_name), from footers", lambda: MinMax("db_name"), {}),
    ]
    optional = [
        ("ValueList(db_name, max_size=100000)", "ValueList", ("db_name", 100_000), {}),
        ("BloomFilter(db_name)", "BloomFilter", ("db_name",), {}),
        ("Hybrid(db_name)", "Hybrid", ("db_name",), {}),
        ("Prefix(db_name, 15)", "Prefix", ("db_name", 15), {}),
        ("Suffix(db_name, 15)", "Suffix", ("db_name", 15), {}),
        ("GapList(bytes)", "GapList", ("bytes",), {}),
    ]
    for label, kind, args, options in optional:
        if hasattr(skipstone, kind):
            cls = getattr(skipstone, kind)
            found.append((label, lambda cls=cls, args=args: cls(*args), options))
    return found


def directory_bytes(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def run(spark: Any, data_dir: str, quick: bool) -> list[Section]:
    root = weblog.write(data_dir, layout="time")
    data_bytes = directory_bytes(root)
    ds = Skipstone.for_path(spark, root)
    rows, data = [], []
    for label, make, options in candidates():
        start = time.perf_counter()
        ds.build(make(), **options)
        seconds = time.perf_counter() - start
        _, table_dir, _ = ds._current()
        size = directory_bytes(table_dir.removeprefix("file:"))
        rows.append([label, seconds, f"{size / 1024:,.0f} KiB", f"{size / data_bytes:.3%}"])
        data.append({"index": label, "seconds": seconds, "metadata_bytes": size, "data_bytes": data_bytes})
    ds.drop()
    md = (f"Web-log dataset, 1,024 Parquet files, {data_bytes / 2**20:,.0f} MiB. Each index built alone "
          "(one Spark job, or footers only), metadata size as stored (Parquet, one file).\n\n") + table(
        ["index", "build (s)", "metadata size", "of data size"], rows)
    return [Section("indexing", md, data)]
