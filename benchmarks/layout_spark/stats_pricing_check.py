"""How well do the policies' prices predict what a reader skips? Offline, no Spark job.

    python -m benchmarks.layout_spark.stats_pricing_check [--sf 1] [--sample-rows 51200] [--queries 300]

On the denormalized TPC-H table the shifting benchmark builds (``make bench-layout-shifting``
leaves it in benchmarks/.data), over the six columns its phases filter: trees built on a
sample are priced three ways on random queries bounding two of the six (the random-attribute
workload) and on each phase's queries: by their cuts (``Layout.cost``), by their blocks' min/max
estimated from the sample (``StatsPricing``, what ``AutoColumns`` prices with), and by the
min/max of every row routed to each block (what Parquet's statistics let Spark skip: the
truth). Prints the share of the table's rows each reads. Simulated, not wall clock.
"""
from __future__ import annotations

import argparse
import glob
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.join(ROOT, "python") not in sys.path:
    sys.path.append(os.path.join(ROOT, "python"))


def encoded_columns(directory: str, columns: list[str]) -> dict[str, np.ndarray]:
    """The columns of every Parquet file in ``directory`` as float64: dates as days, decimals as floats."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = sorted(glob.glob(os.path.join(directory, "*.parquet")))
    if not files:
        raise SystemExit(f"no Parquet files in {directory}: run `make bench-layout-shifting` once to build it")
    table = pa.concat_tables([pq.read_table(f, columns=columns) for f in files])
    out = {}
    for c in columns:
        values = table.column(c).to_numpy()
        if values.dtype.kind == "M":
            values = values.astype("datetime64[D]").astype(np.int64)
        out[c] = values.astype(np.float64)
    return out


def random_queries(schema, sorted_sample: dict[str, np.ndarray], count: int, seed: int, pair=None) -> list:
    """As the shifting benchmark's: each bound covers 5-25 % of its column's values at a random place."""
    from skipstone.layout import Query

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        columns = pair or tuple(rng.choice(sorted(sorted_sample), 2, replace=False))
        ranges = {}
        for c in columns:
            share = rng.uniform(0.05, 0.25)
            low = rng.uniform(0, 1 - share)
            values = sorted_sample[c]
            last = len(values) - 1
            ranges[c] = (values[int(round(low * last))], values[int(round((low + share) * last))])
        out.append(Query.from_ranges(schema, ranges))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--blocks", type=int, default=256)
    parser.add_argument("--sample-rows", type=int, default=51_200, help="a managed table's sample at 256 blocks")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--cache", default=os.path.join(ROOT, "benchmarks", ".data"))
    args = parser.parse_args()

    from benchmarks.layout_spark.shifting_workload import PHASES
    from skipstone.layout import Amoeba, KdTree, LayoutData, RowsRead
    from skipstone.layout.boxes import block_bounding_boxes, touching
    from skipstone.layout.stats_pricing import StatsPricing

    six = sorted({c for p in PHASES for c in p})
    full = LayoutData.from_columns(encoded_columns(
        os.path.join(args.cache, f"lineitem-denormalized-sf{args.sf:g}-{args.blocks}"), six))
    rng = np.random.default_rng(0)
    sample = LayoutData(full.schema, full.values[rng.choice(full.rows, args.sample_rows, replace=False)])
    block_rows = full.rows // args.blocks
    sorted_sample = {c: np.sort(sample.values[:, i]) for i, c in enumerate(six)}

    def shares(spec, queries) -> tuple[float, float, float]:
        tree = spec.build(sample, block_rows, full.rows)
        positions = tree.route(full)
        rows = np.bincount(positions, minlength=tree.block_count).astype(float)
        tree = tree.with_block_rows(rows)
        low, high = block_bounding_boxes(full.values, positions, tree.block_count)
        priced = StatsPricing.of(tree, sample)
        by_cuts = np.mean([tree.cost(q, RowsRead()) for q in queries]) / full.rows
        by_sample = np.mean([priced.cost(q, RowsRead()) for q in queries]) / full.rows
        truth = np.mean([rows[touching(low, high, q.boxes)].sum() for q in queries]) / full.rows
        return by_cuts, by_sample, truth

    trees = {"Amoeba over the six": lambda cols: Amoeba(block_rows=block_rows, columns=six),
             "k-d over the six": lambda cols: KdTree(block_rows=block_rows, columns=six),
             "k-d over receipt, ship, price": lambda cols: KdTree(
                 block_rows=block_rows, columns=["l_receiptdate", "l_shipdate", "l_extendedprice"]),
             "Amoeba over the queried columns": lambda cols: Amoeba(block_rows=block_rows, columns=list(cols))}
    workloads = [("random pairs of the six", None)] + [(f"phase {', '.join(p)}", p) for p in PHASES]
    print(f"SF {args.sf:g}: {full.rows:,} rows, {args.blocks} blocks, a sample of {args.sample_rows:,} rows; "
          f"share of the rows read (simulated)\n")
    print("| workload | tree | by its cuts | by the sample's min/max | by every row's min/max (truth) |")
    print("|---|---|---|---|---|")
    for name, pair in workloads:
        queries = random_queries(full.schema, sorted_sample, args.queries, seed=1, pair=pair)
        for tree_name, spec in trees.items():
            if pair is None and tree_name.endswith("queried columns"):
                continue
            by_cuts, by_sample, truth = shares(spec(pair or ()), queries)
            print(f"| {name} | {tree_name} | {by_cuts:.3f} | {by_sample:.3f} | {truth:.3f} |", flush=True)


if __name__ == "__main__":
    main()
