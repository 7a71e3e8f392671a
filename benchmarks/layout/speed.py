"""Speed of the layout algorithms: tree building from a 1 M-row sample, routing, and one
adaptive-optimizer call over a 100-query window on a 4,096-leaf tree.

    PYTHONPATH=python python benchmarks/layout/speed.py [--rows 1000000] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from skipstone.layout import LayoutData, build_amoeba_tree, build_kd_tree, build_range_tree
from skipstone.layout.adaptive.optimizer import best_plan
from skipstone.layout.adaptive.window import QueryWindow
from skipstone.layout.builders.paw import build_paw_tree
from skipstone.layout.builders.qdtree import build_qd_tree
from skipstone.layout.curves import build_curve_layout
from skipstone.layout.workloads import skewed_ranges, uniform_ranges


def timed(label: str, fn):
    started = time.perf_counter()
    value = fn()
    seconds = time.perf_counter() - started
    print(f"| {label} | {seconds:.2f} s |")
    return value, seconds


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--columns", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    names = [f"c{i}" for i in range(args.columns)]
    sample = LayoutData.from_columns({n: rng.random(args.rows) for n in names})
    total, block = 100 * args.rows, 100 * args.rows / 4096  # the sample stands for a 100x larger table
    history = uniform_ranges(sample, 100, names[:4], seed=1)
    print(f"Building from a {args.rows:,}-row sample, {args.columns} columns, 4,096 blocks:\n")
    print("| builder | time |\n|---|---|")
    timed("range", lambda: build_range_tree(sample, "c0", block, total))
    kd, _ = timed("k-d tree", lambda: build_kd_tree(sample, block, total))
    amoeba, _ = timed("Amoeba upfront", lambda: build_amoeba_tree(sample, block, total))
    timed("Z-order", lambda: build_curve_layout(sample, "zorder", block, total))
    timed("Hilbert", lambda: build_curve_layout(sample, "hilbert", block, total))
    timed("Qd-tree (100 queries)", lambda: build_qd_tree(sample, history, block, total))
    timed("PAW (100 uniform queries)", lambda: build_paw_tree(sample, history, block, 0.01, total))
    skewed = skewed_ranges(sample, 100, names[:4], seed=2)
    timed("PAW (100 skewed queries)", lambda: build_paw_tree(sample, skewed, block, 0.01, total))

    data = LayoutData(sample.schema, np.vstack([sample.values] * 10))
    tree = amoeba.with_counts(sample, 100.0)
    started = time.perf_counter()
    tree.route(data)
    seconds = time.perf_counter() - started
    print(f"\nRouting {data.rows:,} rows through the {tree.depth}-level Amoeba tree: {seconds:.2f} s, "
          f"{data.rows / seconds / 1e6:.1f} M rows/s on one core.\n")

    print("One optimizer call, 100-query window, 4,096-leaf Amoeba tree, 50,000-row optimizer sample:\n")
    print("| query window | p50 | max |\n|---|---|---|")
    small = sample.sample(50_000, args.seed)
    for label, queries in (("uniform ranges, 3 columns", uniform_ranges(sample, 100, names[:3], max_range=0.3, seed=3)),
                           ("skewed ranges, 4 columns", skewed)):
        window = QueryWindow(1000)
        for t, q in enumerate(queries):
            window = window.add(t, q)
        times = []
        for q in queries[:20]:
            started = time.perf_counter()
            best_plan(tree, window, q, small)
            times.append(time.perf_counter() - started)
        print(f"| {label} | {np.median(times):.2f} s | {max(times):.2f} s |")


if __name__ == "__main__":
    main()
