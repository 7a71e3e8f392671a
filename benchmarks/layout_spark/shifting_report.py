"""Results of the shifting-workload run (`shifting.py`): JSON, a Markdown table, and a plot of the
files each method reads per query over time, with the rewrite events marked."""
from __future__ import annotations

import os
from typing import Any

from benchmarks.layout_spark.report import write_files

STATIC = ("sorted", "kd", "kd-shuffled", "zorder", "amoeba")  # the workload-free layouts (zorder knows the columns)


def write_report(result: dict[str, Any], results_dir: str, image_dir: str) -> None:
    write_files(result, results_dir, os.path.join(image_dir, f"layout-{result['name']}.png"), markdown, plot)


def markdown(result: dict[str, Any]) -> str:
    runs = result["methods"]
    phases = len(result["phases"])
    per_phase = result["per_phase"]
    queries = phases * per_phase
    load = result.get("load_average") or [[0.0]]
    lines = [
        f"**{result['name']}** — wall clock on Spark (local[2]): {result['rows']:,} rows "
        f"({result['bytes'] / 1e6:.0f} MB), {result['blocks']} blocks of {result['block_rows']:,} rows; "
        f"{phases} phases of {per_phase} queries on "
        + "; ".join(" and ".join(p) for p in result["phases"])
        + f". Adaptive tables optimized every {result['optimize_every']} queries; the bounded policy's window "
          f"{result['window']} queries, budget {result['budget_share']:.0%} of the table a step. "
          f"1-minute load average {load[0][0]:.1f} at the start, {load[-1][0]:.1f} at the end.",
        "",
        "| method | blocks | queries (s) | deciding (s) | rewriting (s) | total (s) | × faster than full scan "
        "| deciding / total | files read / query | bytes read (fraction) | per phase: bytes read (fraction) "
        "| wrong answers |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    full = runs.get("fullscan", {}).get("total_s")
    for method, r in runs.items():
        speedup = f"{full / r['total_s']:.2f}" if full and r["total_s"] else "—"
        share = r["plan_s"] / r["total_s"] if r["total_s"] else 0.0
        by_phase = []
        for p in range(phases):
            part = slice(p * per_phase, (p + 1) * per_phase)
            total = r["bytes_total"] / max(1, len(r["per_query_bytes"]))
            by_phase.append(f"{sum(r['per_query_bytes'][part]) / max(1.0, total * per_phase):.3f}")
        lines.append(
            f"| {method} | {r['blocks']} | {r['query_s']:.1f} | {r['plan_s']:.1f} ({r['optimizations']}) "
            f"| {r['rewrite_s']:.1f} ({r['rewrites']}) | {r['total_s']:.1f} | {speedup} | {share:.1%} "
            f"| {r['files_read'] / queries:.1f} | {r['bytes_read'] / max(r['bytes_total'], 1):.3f} "
            f"| {' / '.join(by_phase)} | {r['wrong_answers']} |")
    lines += ["", *targets(result)]
    return "\n".join(lines) + "\n"


ADAPTIVE = ("auto", "bounded", "bounded-auto", "adaptive")  # the policies, in the order reported


def targets(result: dict[str, Any]) -> list[str]:
    """The issue's targets, as ratios of this run's totals, for each adaptive method run."""
    runs = result["methods"]
    out = []
    static = {m: runs[m]["total_s"] for m in STATIC if m in runs}
    best = min(static, key=static.get) if static else None
    for method in (m for m in ADAPTIVE if m in runs):
        r = runs[method]
        if best is not None:
            out.append(f"- {method} vs the best static layout ({best}): "
                       f"{static[best] / r['total_s']:.2f}× faster in total (target 1.25×)")
        if "clairvoyant" in runs:
            out.append(f"- {method} / clairvoyant: {r['total_s'] / runs['clairvoyant']['total_s']:.2f} "
                       "(target at most 1.3)")
        out.append(f"- {method} deciding: {r['plan_s'] / r['total_s']:.1%} of its total (target under 3 %)")
        for peer in (m for m in runs if m.startswith(("delta", "iceberg"))):
            out.append(f"- bytes read, {method} / {peer}: {r['bytes_read'] / max(runs[peer]['bytes_read'], 1):.2f}")
    for kd in (m for m in ("kd", "kd-shuffled") if m in runs and "amoeba" in runs):
        out.append(f"- Amoeba's upfront tree vs {kd}: {runs[kd]['total_s'] / runs['amoeba']['total_s']:.2f}× faster "
                   "in total (target at least 1.00)")
    return out


def plot(result: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = result["methods"]
    fig, axis = plt.subplots(figsize=(12, 5))
    window = 10
    colors = plt.get_cmap("tab20").colors  # one color a method: a run has up to a dozen
    for number, (method, r) in enumerate(runs.items()):
        files = r["per_query_files"]
        smooth = [sum(files[max(0, i - window + 1):i + 1]) / len(files[max(0, i - window + 1):i + 1])
                  for i in range(len(files))]
        axis.plot(range(1, len(files) + 1), smooth, label=method, color=colors[number % len(colors)],
                  linewidth=1.6 if method == "bounded" else 1.0)
    for event in result.get("events", []):
        color = "black" if event["method"] == "bounded" else "grey"
        axis.axvline(event["query"], color=color, linestyle=":", linewidth=0.8)
    for p in range(1, len(result["phases"])):
        axis.axvline(p * result["per_phase"], color="red", linewidth=1.0)
    axis.set_yscale("log")
    axis.set_xlabel("query (red: a new phase; dotted: a rewrite, black for bounded)")
    axis.set_ylabel(f"files read (mean of the last {window} queries)")
    axis.set_title(f"{result['name']}: files read per query over time")
    axis.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path, dpi=110)
