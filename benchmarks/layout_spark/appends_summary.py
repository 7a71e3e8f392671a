"""The appends benchmark's table and spreads, from its committed results (no Spark).

    python -m benchmarks.layout_spark.appends_summary \
        benchmarks/layout_spark/results/appends-tpch-sf0.1-kd.json [...]

Prints the table `appends.py` printed when it ran, then what docs/maintenance.md quotes from it:
over the appends (not the build), the range of the rows and bytes fractions a query reads on each
table, of the compaction and rebuild seconds; the files read after the last append; blocks and files.
"""
from __future__ import annotations

import argparse
import json
from typing import Any

from benchmarks.layout_spark.appends import TABLES, Point, Reads, markdown


def points_of(result: dict[str, Any]) -> list[Point]:
    return [Point(**{**p, "reads": {n: Reads(**r) for n, r in p["reads"].items()}}) for p in result["points"]]


def spread(values: list[float], digits: int = 3) -> str:
    return f"{min(values):.{digits}f}-{max(values):.{digits}f}"


def summary(result: dict[str, Any]) -> list[str]:
    points = points_of(result)
    queries = len(result["queries"])
    appends = [p for p in points if p.append.isdigit() and p.append != "0"]
    last, compacted_once = appends[-1], points[-1]
    lines = [f"== {result['name']}: base {result['base_rows']:,} rows, {len(appends)} appends, "
             f"{queries} queries, load average {result['load_average'][0]:.1f}", "", markdown(points, queries), ""]
    for name in TABLES:
        reads = [p.reads[name] for p in appends]
        lines.append(f"{name:9s} over the appends: rows read {spread([r.rows / queries for r in reads])}, "
                     f"bytes read {spread([r.bytes / queries for r in reads])} of the table a query")
    a, c = last.reads["appended"], last.reads["compacted"]
    lines += [f"after append {last.append}: appended reads {a.files_read} files, compacted {c.files_read} "
              f"({a.files_read / c.files_read:.1f}x); after one compaction "
              f"{compacted_once.reads['appended'].files_read}, rebuilt {compacted_once.reads['rebuilt'].files_read}",
              f"blocks / table files: build {points[0].reads['appended'].blocks} / "
              f"{points[0].reads['appended'].table_files}; compacted after append {last.append} "
              f"{c.blocks} / {c.table_files}; appended after one compaction "
              f"{compacted_once.reads['appended'].blocks} / {compacted_once.reads['appended'].table_files}",
              f"compaction after each append: {spread([p.compact_s for p in appends], 1)} s; "
              f"rebuild: {spread([p.rebuild_s for p in appends], 1)} s; "
              f"append: {spread([p.append_s for p in appends], 1)} s"]
    built = points[0].reads["compacted"].table_files
    grew = [p.append for p in appends if p.reads["compacted"].table_files > built]
    if grew:
        lines.append(f"compacted table with more files than at the build from append {grew[0]}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="results JSON written by appends.py")
    for path in parser.parse_args().results:
        with open(path) as f:
            print("\n".join(summary(json.load(f))), end="\n\n")


if __name__ == "__main__":
    main()
