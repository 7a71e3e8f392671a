"""Speed of the layout algorithms: tree building from a 1 M-row sample, routing, and one
adaptive-optimizer call over a 100-query window on a 4,096-leaf tree.

    PYTHONPATH=python python -m benchmarks.layout.speed [--rows 1000000] [--seed 0] [--optimizer-only]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from skipstone.layout import LayoutData, Query, build_amoeba_tree, build_kd_tree, build_range_tree
from skipstone.layout.adaptive.optimizer import best_plan
from skipstone.layout.adaptive.window import QueryWindow
from skipstone.layout.builders.paw import build_paw_tree
from skipstone.layout.builders.qdtree import build_qd_tree
from skipstone.layout.curves import build_curve_layout
from benchmarks.layout_sim.workloads import skewed_ranges, uniform_ranges


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
    p.add_argument("--optimizer-only", action="store_true", help="skip the builders (but the Amoeba tree) and routing")
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    names = [f"c{i}" for i in range(args.columns)]
    sample = LayoutData.from_columns({n: rng.random(args.rows) for n in names})
    total, block = 100 * args.rows, 100 * args.rows / 4096  # the sample stands for a 100x larger table
    history = uniform_ranges(sample, 100, names[:4], seed=1)
    print(f"Building from a {args.rows:,}-row sample, {args.columns} columns, 4,096 blocks:\n")
    print("| builder | time |\n|---|---|")
    amoeba, _ = timed("Amoeba upfront", lambda: build_amoeba_tree(sample, block, total))
    timed("Amoeba upfront, the paper's Algorithm 1", lambda: build_amoeba_tree(sample, block, total, correlations=False))
    skewed = skewed_ranges(sample, 100, names[:4], seed=2)
    if not args.optimizer_only:
        builders(sample, names, block, total, history, skewed, amoeba)
    optimizer(sample, names, amoeba, skewed, args.seed)


def builders(sample: LayoutData, names: list[str], block: float, total: float, history: list, skewed: list, amoeba) -> None:
    timed("range", lambda: build_range_tree(sample, "c0", block, total))
    timed("k-d tree", lambda: build_kd_tree(sample, block, total))
    timed("Z-order", lambda: build_curve_layout(sample, "zorder", block, total))
    timed("Hilbert", lambda: build_curve_layout(sample, "hilbert", block, total))
    timed("Qd-tree (100 queries)", lambda: build_qd_tree(sample, history, block, total))
    timed("PAW (100 uniform queries)", lambda: build_paw_tree(sample, history, block, 0.01, total))
    timed("PAW (100 skewed queries)", lambda: build_paw_tree(sample, skewed, block, 0.01, total))

    data = LayoutData(sample.schema, np.vstack([sample.values] * 10))
    tree = amoeba.with_counts(sample, 100.0)
    started = time.perf_counter()
    tree.route(data)
    seconds = time.perf_counter() - started
    print(f"\nRouting {data.rows:,} rows through the {tree.depth}-level Amoeba tree: {seconds:.2f} s, "
          f"{data.rows / seconds / 1e6:.1f} M rows/s on one core.\n")


def many_predicates(sample: LayoutData, names: list[str], count: int, seed: int) -> list[Query]:
    """q19-like: three OR-ed branches, each a range on 5 columns (30 bounds)."""
    rng = np.random.default_rng(seed)

    def branch() -> dict:
        ranges = []
        for name in rng.choice(names, 5, replace=False):
            low = float(rng.uniform(0, 0.7))
            ranges.append({"column": str(name), "op": "BETWEEN", "value": [low, low + float(rng.uniform(0.1, 0.3))]})
        return {"and": ranges}

    return [Query.from_json({"or": [branch(), branch(), branch()]}, sample.schema) for _ in range(count)]


def optimizer(sample: LayoutData, names: list[str], amoeba, skewed: list, seed: int) -> None:
    tree = amoeba.with_counts(sample, 100.0)
    print("One optimizer call, 100-query window, 4,096-leaf Amoeba tree, 50,000-row optimizer sample:\n")
    # CPU seconds too: on a shared machine wall time mostly measures the neighbours
    print("| query window | p50 | max | CPU p50 | CPU max |\n|---|---|---|---|---|")
    small = sample.sample(50_000, seed)
    for label, queries in (("uniform ranges, 3 columns", uniform_ranges(sample, 100, names[:3], max_range=0.3, seed=3)),
                           ("skewed ranges, 4 columns", skewed),
                           ("q19-like: 3 OR-ed branches x 5 ranges (30 bounds)", many_predicates(sample, names, 100, 4))):
        window = QueryWindow(1000)
        for t, q in enumerate(queries):
            window = window.add(t, q)
        wall, cpu = [], []
        for q in queries[:20]:
            started, cpu_started = time.perf_counter(), time.process_time()
            best_plan(tree, window, q, small)
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - cpu_started)
        print(f"| {label} | {np.median(wall):.2f} s | {max(wall):.2f} s | {np.median(cpu):.2f} s | {max(cpu):.2f} s |")


if __name__ == "__main__":
    main()
