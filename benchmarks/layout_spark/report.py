"""Results of the wall-clock layout experiment: JSON, a Markdown table per workload, and a plot
next to the simulator's numbers (benchmarks/layout/results/tpch.json)."""
from __future__ import annotations

import json
import os
from typing import Any, Callable

SIMULATED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "layout", "results", "tpch.json")
WORKLOADS = (("methods", "TPC-H templates (q3, q5, q6, q8, q12, q14, q19 interleaved)"),
             ("random", "worst case: random attributes, random ranges"))


def write_report(result: dict[str, Any], results_dir: str, image_dir: str) -> None:
    write_files(result, results_dir, os.path.join(image_dir, f"layout-spark-{result['name']}.png"), markdown, plot)


def write_files(result: dict[str, Any], results_dir: str, image: str, as_markdown: Callable[[dict[str, Any]], str],
                draw: Callable[[dict[str, Any], str], None]) -> None:
    """A run's results as <results_dir>/<name>.json and .md (printed too), and its plot as ``image``."""
    os.makedirs(results_dir, exist_ok=True)
    name = result["name"]
    with open(os.path.join(results_dir, f"{name}.json"), "w") as out:
        json.dump(result, out, indent=1)
    table = as_markdown(result)
    with open(os.path.join(results_dir, f"{name}.md"), "w") as out:
        out.write(table)
    print(table)
    try:
        draw(result, image)
    except ImportError:
        print("matplotlib is missing: no plot (pip install -e '.[bench]')")


def runs_of(result: dict[str, Any], key: str) -> dict[str, Any]:
    """The method runs of one workload: top-level "methods" (templates) or "random"."""
    return result.get(key, {}) if key == "methods" else result.get(key, {}).get("methods", {})


def markdown(result: dict[str, Any]) -> str:
    load = result.get("load_average")
    lines = [
        f"**{result['name']}** — wall clock on Spark (local[2]): {result['rows']:,} rows, {result['blocks']} blocks "
        f"of {result['block_rows']:,} rows, {result['queries']} template queries; the adaptive tables are "
        f"optimized every {result['optimize_every']} queries over a window of {result['window']}.",
    ]
    if load and max(l[0] for l in load) < 1.5:
        lines += ["", f"Measured on a quiet machine (1-minute load average {load[0][0]:.1f} at the start, "
                      f"{load[-1][0]:.1f} at the end)."]
    elif load:
        lines += ["", f"Measured under load (other engineers' jobs on the same 2 cores; 1-minute load average "
                      f"{load[0][0]:.1f} at the start, {load[-1][0]:.1f} at the end): absolute seconds are noisy; "
                      "the ratios within one run are what count."]
    for key, title in WORKLOADS:
        runs = runs_of(result, key)
        if runs:
            count = result["queries"] if key == "methods" else result[key].get("queries", result["queries"])
            lines += ["", f"*{title}* ({count} queries)", "",
                      *_table(runs, count, result.get("deltalake") if key == "methods" else None)]
    return "\n".join(lines) + "\n"


def _table(runs: dict[str, Any], queries: int, peer: dict[str, Any] | None) -> list[str]:
    full = runs.get("fullscan", {}).get("total_s")
    lines = [
        "| method | blocks | create (s) | queries (s) | planning (s) | rewriting (s) | total = queries + planning "
        "+ rewriting (s) | total / full scan | × faster than full scan | files read / query | bytes read (fraction) "
        "| wrong answers |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for method, r in runs.items():
        plan_s, rewrite_s = r.get("plan_s", r.get("optimize_s", 0.0)), r.get("rewrite_s", 0.0)
        ratio = f"{r['total_s'] / full:.2f}" if full else "—"
        speedup = f"{full / r['total_s']:.2f}" if full and r["total_s"] else "—"
        files = r["blocks"] if r["blocks"] else r["files_total"] // max(queries, 1)
        calls = r.get("optimizations", 0)
        lines.append(
            f"| {method} | {files} | {r['create_s']:.1f} | {r['query_s']:.1f} | {plan_s:.1f} ({calls} calls) "
            f"| {rewrite_s:.1f} ({r.get('rewrites', calls)}) | {r['total_s']:.1f} | {ratio} | {speedup} "
            f"| {r['files_read'] / queries:.1f} | {r['bytes_read'] / max(r['bytes_total'], 1):.3f} | {r['wrong_answers']} |")
    if peer:
        lines.append(
            f"| deltalake Z-order (peer) | {peer['files']} | {peer['create_s']:.1f} | — | — | — | — | — | — "
            f"| {peer['files_read'] / queries:.1f} | {peer['bytes_read'] / max(peer['bytes_total'], 1):.3f} | — |")
    return lines


def plot(result: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    simulated = {}
    if os.path.exists(SIMULATED):
        simulated = {m: v["scan_ratio"] for m, v in json.load(open(SIMULATED))["methods"].items()}
    panels = [(key, title) for key, title in WORKLOADS if runs_of(result, key)]
    fig, axes = plt.subplots(1, len(panels) + 1, figsize=(6 * (len(panels) + 1), 4.8))
    for axis, (key, title) in zip(axes, panels):
        runs = runs_of(result, key)
        names = list(runs)
        queries = [runs[n]["query_s"] for n in names]
        planning = [runs[n].get("plan_s", runs[n].get("optimize_s", 0.0)) for n in names]
        rewriting = [runs[n].get("rewrite_s", 0.0) for n in names]
        axis.bar(names, queries, label="queries")
        axis.bar(names, planning, bottom=queries, label="planning (optimize calls)")
        axis.bar(names, rewriting, bottom=[q + p for q, p in zip(queries, planning)], label="rewriting")
        full = runs.get("fullscan", {}).get("total_s")
        for i, n in enumerate(names):
            if full:
                axis.annotate(f"{runs[n]['total_s'] / full:.2f}", (i, runs[n]["total_s"]), ha="center", va="bottom",
                              fontsize=8)
        axis.set_ylabel("seconds (wall clock, under load)")
        axis.set_title(f"{result['name']}: {title.split(' (')[0]}\n(label: total / full scan)", fontsize=10)
        axis.legend(fontsize=8)
    right = axes[-1]
    runs = runs_of(result, "methods") or runs_of(result, panels[0][0])
    names = list(runs)
    x = range(len(names))
    width = 0.4
    right.bar([i - width / 2 for i in x], [runs[n]["bytes_read"] / max(runs[n]["bytes_total"], 1) for n in names],
              width, label="bytes read on Spark (wall-clock run)")
    right.bar([i + width / 2 for i in x], [simulated.get(n, 0.0) for n in names], width,
              label="rows read in the simulator (SF 0.1, 2,048 blocks)")
    right.set_xticks(list(x), names)
    right.set_ylabel("fraction of the table read")
    right.set_title("Templates: measured vs simulated", fontsize=10)
    right.legend(fontsize=8)
    for axis in axes:
        axis.tick_params(axis="x", rotation=30)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path, dpi=110)
