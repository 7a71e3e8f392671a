"""Workload simulator: build layouts, run a workload, count rows read and rewritten.

    python -m benchmarks.layout_sim.simulate --data tpch --scale 0.1 --workload tpch --queries 200 \\
        --methods fullscan,range,kd,amoeba,adaptive --block-rows 600 --seed 0 --out tpch.json

Per method it writes: the average scan ratio (rows read / table rows), the ratio to the lower
bound (rows read / rows matching), the ratio to the block bound (a query matching anything
reads at least one block), blocks touched per query, rows rewritten by repartitioning, the
total cost (reads + write_multiplier * rewrites), the speed-up over a full scan, and the cost
of every query (for the curves).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from skipstone.layout.adaptive.optimizer import OptimizerOptions, best_plan
from skipstone.layout.adaptive.window import QueryWindow
from benchmarks.layout_sim.datasets import tpch_denormalized, weblog
from skipstone.layout.layout import Layout
from benchmarks.layout_sim.methods import METHODS, BuildContext
from benchmarks.layout_sim.minmax_view import MinMaxView
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from benchmarks.layout_sim.templates import iot_queries, tpch_queries
from skipstone.layout.tree import PartitionTree
from benchmarks.layout_sim.workloads import delta_similar, one_shot_attributes, random_attribute_ranges, skewed_ranges, uniform_ranges

WORKLOADS = ("uniform", "skewed", "tpch", "iot", "random", "oneshot")


@dataclass
class MethodResult:
    build_seconds: float
    blocks: int
    scan_ratio: float
    lower_bound_ratio: float
    block_bound_ratio: float
    blocks_touched: float
    rows_rewritten: float
    repartitions: int
    total_cost: float
    speedup_over_fullscan: float
    # the same, with each query also paying a fixed cost and each block it opens a file cost
    # (--query-rows, --file-rows; 0 and 0: equal to speedup_over_fullscan)
    priced_speedup: float
    per_query_cost: list[float]


@dataclass(frozen=True, eq=False)
class Workload:
    queries: list[Query]  # what is measured
    history: list[Query]  # what workload-aware builders learn from


def run_static(layout: Layout, queries: Sequence[Query], matched: np.ndarray, block_rows: float) -> dict:
    read = np.array([layout.cost(q) for q in queries])
    touched = np.array([layout.touched(q).sum() for q in queries])
    return {"read": read, "touched": touched, "rewritten": np.zeros(len(queries)), "repartitions": 0}


def run_adaptive(
    tree: PartitionTree, queries: Sequence[Query], data: LayoutData, sample: LayoutData, horizon: float, options: OptimizerOptions
) -> dict:
    """Amoeba's adaptive executor: each query reads its blocks and may rewrite some of them."""
    window = QueryWindow(horizon)
    read, touched, rewritten, repartitions = [], [], [], 0
    for i, q in enumerate(queries):
        window = window.add(i, q)
        read.append(tree.cost(q))
        touched.append(int(tree.touched(q).sum()))
        plan = best_plan(tree, window, q, sample, options)
        if plan is None:
            rewritten.append(0.0)
            continue
        rewritten.append(plan.rewritten_rows)
        repartitions += 1
        tree = plan.tree.with_counts(data)
    return {"read": np.array(read), "touched": np.array(touched), "rewritten": np.array(rewritten), "repartitions": repartitions}


def summarize(outcome: dict, matched: np.ndarray, total_rows: float, block_rows: float, c: float, seconds: float, blocks: int,
              query_rows: float = 0.0, file_rows: float = 0.0, fullscan_blocks: int = 1) -> MethodResult:
    read, rewritten = outcome["read"], outcome["rewritten"]
    per_query = read + c * rewritten
    priced = per_query + query_rows + file_rows * np.asarray(outcome["touched"], dtype=np.float64)
    priced_fullscan = (total_rows + query_rows + file_rows * fullscan_blocks) * len(read)
    block_bound = np.where(matched > 0, np.maximum(matched, np.minimum(block_rows, total_rows)), 0.0)
    fullscan = total_rows * len(read)
    return MethodResult(
        build_seconds=round(seconds, 3),
        blocks=blocks,
        scan_ratio=float(np.mean(read) / total_rows),
        lower_bound_ratio=float(read.sum() / max(matched.sum(), 1.0)),
        block_bound_ratio=float(read.sum() / max(block_bound.sum(), 1.0)),
        blocks_touched=float(np.mean(outcome["touched"])),
        rows_rewritten=float(rewritten.sum()),
        repartitions=int(outcome["repartitions"]),
        total_cost=float(per_query.sum()),
        speedup_over_fullscan=float(fullscan / max(per_query.sum(), 1.0)),
        priced_speedup=float(priced_fullscan / max(priced.sum(), 1.0)),
        per_query_cost=[float(v) for v in per_query],
    )


def make_workload(args: argparse.Namespace, data: LayoutData) -> Workload:
    dims = _dims(args, data)
    n, seed = args.queries, args.seed
    if args.workload in ("uniform", "skewed"):
        make = uniform_ranges if args.workload == "uniform" else skewed_ranges
        history = make(data, n, dims, max_range=args.max_range, seed=seed)
        return Workload(delta_similar(data, history, args.delta, seed=seed + 1), history)
    if args.workload == "tpch":
        return Workload(tpch_queries(data, n, seed), tpch_queries(data, args.history, seed + 1))
    if args.workload == "iot":
        return Workload(iot_queries(data, n, seed), iot_queries(data, args.history, seed + 1))
    if args.workload == "random":
        return Workload(random_attribute_ranges(data, n, 0.1, dims, seed), random_attribute_ranges(data, args.history, 0.1, dims, seed + 1))
    if args.workload == "oneshot":
        queries = one_shot_attributes(data, 4, 5, 0.1, seed)
        return Workload(queries, one_shot_attributes(data, 4, 5, 0.1, seed + 1))
    raise ValueError(f"unknown workload {args.workload!r}; use one of {WORKLOADS}")


def load_data(args: argparse.Namespace) -> LayoutData:
    if args.data == "tpch":
        data = tpch_denormalized(args.scale, args.cache)
    elif args.data == "weblog":
        data = weblog(args.rows, args.seed)
    else:
        raise ValueError(f"unknown data {args.data!r}; use tpch or weblog")
    if args.columns:
        names = [c.strip() for c in args.columns.split(",")]
        idx = [data.schema.index(c) for c in names]
        from skipstone.layout.schema import Schema

        data = LayoutData(Schema(tuple(data.schema.columns[i] for i in idx)), data.values[:, idx])
    return data


def simulate(args: argparse.Namespace) -> dict:
    data = load_data(args)
    workload = make_workload(args, data)
    sample = data.sample(args.sample_rows, args.seed)
    matched = np.array([q.matches(data).sum() for q in workload.queries], dtype=np.float64)
    context = BuildContext(
        data=data, sample=sample, history=workload.history, block_rows=args.block_rows,
        range_column=args.range_column or _default_range_column(args, data), columns=None,
        delta=args.delta, alpha=args.alpha, seed=args.seed,
    )
    options = OptimizerOptions(args.write_multiplier, args.objective)
    results: dict[str, dict] = {}
    for name in args.methods.split(","):
        if name not in METHODS:
            raise ValueError(f"unknown method {name!r}; use some of {sorted(METHODS)}")
        started = time.perf_counter()
        layout = METHODS[name](context).with_counts(data)
        seconds = time.perf_counter() - started
        if name == "adaptive":
            outcome = run_adaptive(layout, workload.queries, data, sample.sample(args.optimizer_sample, args.seed), args.window, options)
        else:
            seen = MinMaxView.of(layout, data) if args.descriptors == "minmax" else layout
            outcome = run_static(seen, workload.queries, matched, args.block_rows)
        results[name] = asdict(summarize(outcome, matched, data.rows, args.block_rows, args.write_multiplier, seconds,
                                         layout.block_count, args.query_rows, args.file_rows, _fullscan_blocks(args, data)))
        print(_line(name, results[name]), file=sys.stderr)
    settings = {k: v for k, v in vars(args).items() if k not in ("out",)}
    return {"settings": settings, "table_rows": data.rows, "queries": len(workload.queries),
            "matched_rows_mean": float(matched.mean()), "methods": results}


def _fullscan_blocks(args: argparse.Namespace, data: LayoutData) -> int:
    """Files a full scan opens: the table cut into blocks of --block-rows, as the Spark bench writes it."""
    return max(1, round(data.rows / args.block_rows))


def _dims(args: argparse.Namespace, data: LayoutData) -> list[str]:
    if args.dims:
        return [c.strip() for c in args.dims.split(",")]
    return list(data.schema.names)


def _default_range_column(args: argparse.Namespace, data: LayoutData) -> str:
    for name in ("o_orderdate", "ts"):
        if name in data.schema.names:
            return name
    return _dims(args, data)[0]


def _line(name: str, r: dict) -> str:
    return (f"{name:14s} blocks={r['blocks']:5d} scan={r['scan_ratio']:.4f} lb×={r['lower_bound_ratio']:.2f} "
            f"block-bound×={r['block_bound_ratio']:.2f} touched={r['blocks_touched']:.1f} "
            f"rewritten={r['rows_rewritten']:.0f} speedup={r['speedup_over_fullscan']:.2f} priced={r['priced_speedup']:.2f} build={r['build_seconds']}s")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.layout_sim.simulate", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default="weblog", choices=["tpch", "weblog"], help="data set")
    p.add_argument("--scale", type=float, default=0.1, help="TPC-H scale factor (tpch)")
    p.add_argument("--rows", type=int, default=200_000, help="rows of the synthetic web-log (weblog)")
    p.add_argument("--cache", default=".cache/tpch", help="where tpchgen-cli writes TPC-H")
    p.add_argument("--columns", default="", help="keep only these layout columns (comma separated)")
    p.add_argument("--workload", default="uniform", choices=WORKLOADS)
    p.add_argument("--queries", type=int, default=100, help="queries measured")
    p.add_argument("--history", type=int, default=100, help="historical queries for workload-aware builders")
    p.add_argument("--dims", default="", help="columns the range workloads filter on (comma separated)")
    p.add_argument("--max-range", type=float, default=0.1, help="γ: largest query side, fraction of the domain")
    p.add_argument("--delta", type=float, default=0.01, help="δ: distance of future to past queries, fraction of the domain")
    p.add_argument("--alpha", type=float, default=4.0, help="PAW split policy α")
    p.add_argument("--methods", default="fullscan,range,kd,amoeba,adaptive,zorder,hilbert,qdtree,paw")
    p.add_argument("--block-rows", type=float, default=1000, help="rows per block (PAW's b_min)")
    p.add_argument("--sample-rows", type=int, default=200_000, help="sample the builders see")
    p.add_argument("--optimizer-sample", type=int, default=50_000, help="sample the adaptive optimizer sees")
    p.add_argument("--window", type=float, default=30, help="adaptive query window, in queries")
    p.add_argument("--write-multiplier", type=float, default=4.0, help="Amoeba's c")
    p.add_argument("--objective", default="net", choices=["net", "ratio"], help="how the optimizer ranks plans")
    p.add_argument("--range-column", default="", help="column of the single-column range layout")
    p.add_argument("--descriptors", default="cuts", choices=["cuts", "minmax"],
                   help="what a static layout's blocks are skipped by: the tree's cuts, or the min/max of every "
                        "column over each block's rows (what Skipstone's per-file statistics give)")
    p.add_argument("--query-rows", type=float, default=0.0,
                   help="fixed cost of a query, in rows read (priced_speedup; Spark at SF 1: 0.24 s = 2.4 M rows)")
    p.add_argument("--file-rows", type=float, default=0.0,
                   help="cost of opening a block's file, in rows read (priced_speedup; Spark at SF 1: 3.8 ms = 37 K rows)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="", help="write the JSON result here (default: stdout)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    result = simulate(args)
    text = json.dumps(result, indent=1)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
