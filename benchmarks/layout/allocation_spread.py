"""Amoeba's Table 2 trend: how evenly the k-d tree and Amoeba's upfront tree spread
allocation over TPC-H lineitem's attributes as the table grows (64 MB blocks).

    PYTHONPATH=python python -m benchmarks.layout.allocation_spread [--cache .cache/tpch]

The tree depends only on the number of blocks and the sample, so a scale factor 0.1 sample
stands for every size; the coefficient of variation is std / mean of Allocation_i over the
attributes (population std).
"""

from __future__ import annotations

import argparse

import numpy as np

from skipstone.layout import LayoutData, Schema, build_amoeba_tree, build_kd_tree
from benchmarks.layout_sim.datasets import tpch_denormalized

BYTES_PER_ROW = 0.73e9 / 6_001_215  # lineitem at SF 1 is 0.73 GB (Amoeba's Table 2)
BLOCK_BYTES = 64 * 2**20


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cache", default=".cache/tpch")
    p.add_argument("--seeds", type=int, default=5, help="Amoeba breaks ties at random: average over seeds")
    args = p.parse_args()
    full = tpch_denormalized(0.1, args.cache)
    keep = [i for i, name in enumerate(full.schema.names) if name.startswith("l_")]
    data = LayoutData(Schema(tuple(full.schema.columns[i] for i in keep)), full.values[:, keep])
    block_rows = BLOCK_BYTES / BYTES_PER_ROW
    print(f"{data.schema.width} lineitem attributes; block = 64 MB = {block_rows:,.0f} rows\n")
    print("| scale factor | size (GB) | blocks | k-d tree CV | Amoeba CV |\n|---|---|---|---|---|")
    for sf in (1, 10, 20, 50, 100, 1000):
        total = 6_001_215 * sf
        kd = build_kd_tree(data, block_rows, total).allocation()
        amoeba = [build_amoeba_tree(data, block_rows, total, seed=s).allocation() for s in range(args.seeds)]
        cv = lambda a: float(np.std(a) / np.mean(a))  # noqa: E731
        blocks = 2 ** int(np.floor(np.log2(total / block_rows)))
        print(f"| {sf} | {total * BYTES_PER_ROW / 1e9:.2f} | {blocks} | {cv(kd):.3f} | {np.mean([cv(a) for a in amoeba]):.3f} |")


if __name__ == "__main__":
    main()
