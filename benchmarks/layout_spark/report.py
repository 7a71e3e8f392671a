"""Results of the wall-clock layout experiment: JSON, a Markdown table, and a plot next to the
simulator's numbers (benchmarks/layout/results/tpch.json)."""
from __future__ import annotations

import json
import os
from typing import Any

SIMULATED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "layout", "results", "tpch.json")


def write_report(result: dict[str, Any], results_dir: str, image_dir: str) -> None:
    os.makedirs(results_dir, exist_ok=True)
    name = result["name"]
    with open(os.path.join(results_dir, f"{name}.json"), "w") as out:
        json.dump(result, out, indent=1)
    table = markdown(result)
    with open(os.path.join(results_dir, f"{name}.md"), "w") as out:
        out.write(table)
    print(table)
    try:
        plot(result, os.path.join(image_dir, f"layout-spark-{name}.png"))
    except ImportError:
        print("matplotlib is missing: no plot (pip install -e '.[bench]')")


def markdown(result: dict[str, Any]) -> str:
    runs = result["methods"]
    full = runs.get("fullscan", {}).get("total_s")
    lines = [
        f"**{result['name']}** — wall clock on Spark: {result['rows']:,} rows, {result['blocks']} blocks of "
        f"{result['block_rows']:,} rows, {result['queries']} queries",
        "",
        "| method | blocks | create (s) | queries (s) | repartitioning (s) | total (s) | × faster than full scan "
        "| files read / query | bytes read (fraction) | wrong answers |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for method, r in runs.items():
        speedup = f"{full / r['total_s']:.2f}" if full and r["total_s"] else "—"
        files = r["blocks"] if r["blocks"] else r["files_total"] // max(result["queries"], 1)
        lines.append(
            f"| {method} | {files} | {r['create_s']:.1f} | {r['query_s']:.1f} | {r['optimize_s']:.1f} "
            f"({r['optimizations']}) | {r['total_s']:.1f} | {speedup} | {r['files_read'] / result['queries']:.1f} "
            f"| {r['bytes_read'] / max(r['bytes_total'], 1):.3f} | {r['wrong_answers']} |")
    peer = result.get("deltalake")
    if peer:
        lines.append(
            f"| deltalake Z-order (peer) | {peer['files']} | {peer['create_s']:.1f} | — | — | — | — "
            f"| {peer['files_read'] / result['queries']:.1f} | {peer['bytes_read'] / max(peer['bytes_total'], 1):.3f} | — |")
    return "\n".join(lines) + "\n"


def plot(result: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = result["methods"]
    names = list(runs)
    simulated = {}
    if os.path.exists(SIMULATED):
        simulated = {m: v["scan_ratio"] for m, v in json.load(open(SIMULATED))["methods"].items()}
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    queries = [runs[n]["query_s"] for n in names]
    repartitioning = [runs[n]["optimize_s"] for n in names]
    left.bar(names, queries, label="queries")
    left.bar(names, repartitioning, bottom=queries, label="repartitioning")
    left.set_ylabel("seconds (wall clock)")
    left.set_title(f"Total workload time on Spark, {result['name']}")
    left.legend()
    x = range(len(names))
    width = 0.4
    right.bar([i - width / 2 for i in x], [runs[n]["bytes_read"] / max(runs[n]["bytes_total"], 1) for n in names],
              width, label="bytes read on Spark (wall-clock run)")
    right.bar([i + width / 2 for i in x], [simulated.get(n, 0.0) for n in names], width,
              label="rows read in the simulator (SF 0.1, 2,048 blocks)")
    right.set_xticks(list(x), names)
    right.set_ylabel("fraction of the table read")
    right.set_title("Measured vs simulated")
    right.legend(fontsize=8)
    for axis in (left, right):
        axis.tick_params(axis="x", rotation=30)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path, dpi=110)
