"""PNG pictures of layouts and workloads (needs matplotlib).

    python -m benchmarks.layout_sim.pictures layouts --out docs/img
        2-D layouts of the k-d tree, Qd-tree and PAW with the historical and the future
        queries (like PAW's Figures 13 and 14), on the web-log's latitude and longitude.
    python -m benchmarks.layout_sim.pictures curves --result tpch.json --out docs/img/layout-cost-per-query.png
        cost per query, reads plus rewrites, of each method in a simulator result (like
        Amoeba's Figure 11).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Sequence

import numpy as np

from skipstone.layout.builders.data_aware import build_kd_tree
from skipstone.layout.builders.paw import build_paw_tree
from skipstone.layout.builders.qdtree import build_qd_tree
from benchmarks.layout_sim.datasets import weblog
from skipstone.layout.layout import Layout
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData, Schema
from benchmarks.layout_sim.workloads import delta_similar, skewed_ranges


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def draw_layouts(out: Path, rows: int = 100_000, queries: int = 30, block_rows: float = 1500, seed: int = 0) -> list[Path]:
    full = weblog(rows, seed)
    keep = [full.schema.index("lon"), full.schema.index("lat")]
    data = LayoutData(Schema(tuple(full.schema.columns[i] for i in keep)), full.values[:, keep])
    history = skewed_ranges(data, queries, ["lon", "lat"], max_range=0.08, centres=6, seed=seed + 1)
    future = delta_similar(data, history, 0.01, seed=seed + 2)
    layouts = {
        "k-d tree": build_kd_tree(data, block_rows).with_counts(data),
        "Qd-tree": build_qd_tree(data, history, block_rows).with_counts(data),
        "PAW": build_paw_tree(data, history, block_rows, 0.01).with_counts(data),
    }
    written = []
    for label, workload in (("history", history), ("future", future)):
        path = out / f"layout-2d-{label}.png"
        _draw_row(path, data, layouts, workload, f"{label} workload")
        written.append(path)
    return written


def _draw_row(path: Path, data: LayoutData, layouts: dict[str, Layout], queries: Sequence[Query], title: str) -> None:
    plt = _pyplot()
    from matplotlib.patches import Rectangle

    lo, hi = data.values.min(axis=0), data.values.max(axis=0)
    fig, axes = plt.subplots(1, len(layouts), figsize=(5 * len(layouts), 4.4))
    shown = data.values[np.random.default_rng(0).choice(data.rows, min(data.rows, 20_000), replace=False)]
    for ax, (name, layout) in zip(axes, layouts.items()):
        ax.scatter(shown[:, 0], shown[:, 1], s=0.3, c="0.6", linewidths=0)
        d = layout.descriptors()
        for b_lo, b_hi in zip(np.clip(d.low, lo, hi), np.clip(d.high, lo, hi)):
            ax.add_patch(Rectangle(b_lo, *(b_hi - b_lo), fill=False, ec="tab:green", lw=0.5))
        for q in queries:
            for q_lo, q_hi in zip(np.clip(q.boxes.low, lo, hi), np.clip(q.boxes.high, lo, hi)):
                ax.add_patch(Rectangle(q_lo, *(q_hi - q_lo), fill=False, ec="tab:red", lw=0.9))
        mean_cost = np.mean([layout.cost(q) for q in queries]) / data.rows
        ax.set_title(f"{name}: {layout.block_count} blocks, scan ratio {mean_cost:.4f}")
        ax.set_xlim(lo[0], hi[0])
        ax.set_ylim(lo[1], hi[1])
        ax.set_xlabel(data.schema.names[0])
        ax.set_ylabel(data.schema.names[1])
    fig.suptitle(f"Layouts (green) and the {title} (red)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def draw_curves(result_path: Path, out: Path, methods: Sequence[str] | None = None) -> Path:
    plt = _pyplot()
    result = json.loads(Path(result_path).read_text())
    rows = result["table_rows"]
    chosen = methods or list(result["methods"])
    fig, axes = plt.subplots(len(chosen), 1, figsize=(9, 1.7 * len(chosen)), sharex=True, sharey=True)
    for ax, name in zip(np.atleast_1d(axes), chosen):
        m = result["methods"][name]
        cost = np.array(m["per_query_cost"]) / rows
        ax.bar(np.arange(len(cost)), cost, width=1.0, color="tab:blue")
        ax.axhline(1.0, color="0.5", lw=0.6, ls="--")
        ax.set_ylabel("x full scan")
        ax.set_title(f"{name}: total {m['speedup_over_fullscan']:.2f}x faster than full scan", fontsize=9, loc="left")
    np.atleast_1d(axes)[-1].set_xlabel("query")
    fig.suptitle("Cost per query (rows read + c x rows rewritten), relative to a full scan")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.layout_sim.pictures", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    layouts = sub.add_parser("layouts")
    layouts.add_argument("--out", default="docs/img")
    layouts.add_argument("--seed", type=int, default=0)
    curves = sub.add_parser("curves")
    curves.add_argument("--result", required=True)
    curves.add_argument("--out", default="docs/img/layout-cost-per-query.png")
    curves.add_argument("--methods", default="")
    args = p.parse_args(argv)
    if args.what == "layouts":
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for path in draw_layouts(out, seed=args.seed):
            print(path)
    else:
        print(draw_curves(Path(args.result), Path(args.out), [m for m in args.methods.split(",") if m] or None))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
