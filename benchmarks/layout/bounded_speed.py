"""What one `BoundedRewrite.propose` call costs: CPU seconds on a uniform sample, hot queries on two
columns, after a short log and after a backlog, on a small and a large upfront tree.

    PYTHONPATH=python python -m benchmarks.layout.bounded_speed [--rows 50000] [--columns 25] [--repeats 3]

The sample stands for a table 100 times its rows at 100 bytes a row; the budget is a quarter of the
table (as in the shifting benchmark), so on the larger tree every subtree up to it is a candidate.
Prints the median CPU seconds of ``--repeats`` calls for each tree and log length.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from benchmarks.layout_sim.workloads import uniform_ranges
from skipstone.layout import BoundedRewrite, LayoutData, build_amoeba_tree

BYTES_PER_ROW = 100.0


def cpu_seconds(policy: BoundedRewrite, tree, queries: list, sample: LayoutData, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.process_time()
        policy.propose(tree, queries, sample)
        times.append(time.process_time() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--columns", type=int, default=25)
    parser.add_argument("--leaves", default="256,2048")
    parser.add_argument("--queries", default="60,360", help="log lengths")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    names = [f"c{i}" for i in range(args.columns)]
    sample = LayoutData.from_columns({n: rng.random(args.rows) for n in names})
    total = 100 * args.rows
    counts = [int(n) for n in args.queries.split(",")]
    log = uniform_ranges(sample, max(counts), names[:2], seed=args.seed + 1)
    print(f"| leaves | {' | '.join(f'after {n} queries' for n in counts)} |")
    print("|---|" + "---|" * len(counts))
    for leaves in (int(n) for n in args.leaves.split(",")):
        # a node splits from twice the target rows, so leaves of 1/1.2 of an even share come out near `leaves`
        block_rows = total / (1.2 * leaves)
        tree = build_amoeba_tree(sample, block_rows, total)
        policy = BoundedRewrite(block_rows=block_rows, budget_bytes=0.25 * total * BYTES_PER_ROW
                                ).with_bytes_per_row(BYTES_PER_ROW)
        seconds = [cpu_seconds(policy, tree, log[:n], sample, args.repeats) for n in counts]
        print(f"| {tree.block_count} | " + " | ".join(f"{s:.2f} s" for s in seconds) + " |", flush=True)


if __name__ == "__main__":
    main()
