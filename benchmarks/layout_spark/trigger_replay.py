"""When does AutoColumns buy, and does it pay? The shifting benchmark's workloads replayed offline.

    python -m benchmarks.layout_spark.trigger_replay [--random-attributes] [--per-phase 100]
        [--optimize-every 50] [--write-scales 0.5,1,2] [--max-columns 3,6] [--prices F,J,C]

The wall-clock benchmark (``shifting.py``) takes 10 to 50 minutes a run, so a change to the
policy's trigger is hard to judge by it alone. This replays its workload (the same generator and
seed, on the same denormalized TPC-H table, which ``make bench-layout-shifting`` leaves in
benchmarks/.data) against the layouts alone: the table starts as Amoeba's upfront tree built on
a sample of the size a managed table keeps; every ``--optimize-every`` queries the policy plans
on the log so far, as ``t.optimize()`` does, and its change, if any, replaces the tree.

Each query is priced by the cost model the policy prices with (``SparkCost``: the bytes of the
columns it reads, by their share of the files' bytes in the Parquet footers, plus a price per
file, the table's file size limit, plus its fixed price: Spark plans and schedules a query
whatever it reads, ``query_price``), on a second, independent and larger sample
(``--truth-rows``): the blocks' min/max as the files will hold them, so a policy cannot flatter
itself with the sample it chose on. The policy prices with the mean share of the last 100
queries, as a table's log gives it. A rewrite costs what the policy predicted. The samples are
drawn once (a Spark job) and kept in benchmarks/.data.
Prints per method the total in the model's units (simulated, not seconds), the rewrites and when,
and the ratio to the upfront tree and to k-d. ``AutoColumns()`` is replayed once per
``--write-scales``: its write multiplier times each, a rewrite priced that much dearer or
cheaper against a read (on object storage a read costs more against a rewrite than on local
SSD; a calibrated table, ``t.calibrate()``, prices with its own). ``--prices`` replays with a
table's calibrated prices instead of the library's (as the shifting benchmark's ``--calibrate``
prints them): file_bytes, job_bytes, write multiplier and (optionally) query_bytes, for the
policy and the pricing alike.
``--max-columns`` replays ``AutoColumns`` once per value of its ``max_columns`` too.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from dataclasses import replace
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.join(ROOT, "python") not in sys.path:
    sys.path.append(os.path.join(ROOT, "python"))

from benchmarks.layout_spark.shifting_workload import (PHASES, SELECTED,  # noqa: E402 (after the path)
                                                      random_attribute_workload, shifting_workload)
from skipstone.layout.cost_model import query_price, write_multiplier_or_default  # noqa: E402


def read_shares(workload: list[tuple[int, dict]], shares: dict[str, float]) -> list[float]:
    """The share of a row's bytes each query reads: its filter columns and what it selects."""
    return [sum(shares[c] for c in {b["column"] for b in q["and"]} | set(SELECTED)) for _, q in workload]


def samples(df: Any, rows: int, sizes: tuple[int, int], seed: int, cache: str) -> tuple[Any, Any]:
    """The policy's sample and the truth's, drawn by the JVM as a table draws its own, kept in ``cache``."""
    import pickle

    path = os.path.join(cache, f"replay-samples-{rows}-{sizes[0]}-{sizes[1]}-{seed}.pkl")
    if os.path.exists(path):
        with open(path, "rb") as f:
            return pickle.load(f)
    from skipstone.table.sample import draw_sample

    drawn = tuple(draw_sample(df, df.columns, rows, n, seed=seed + k) for k, n in enumerate(sizes))
    with open(path, "wb") as f:
        pickle.dump(drawn, f)
    return drawn


def replay(policy: Any, start: Any, queries: list, shares: list[float], sample: Any, truth: Any, model: Any,
           every: int) -> dict[str, Any]:
    """The policy run over ``queries`` from the tree ``start``: its total, its rewrites and its deciding seconds."""
    from skipstone.layout.stats_pricing import StatsPricing

    tree, priced = start, StatsPricing.of(start, truth)
    total, rewrites, deciding = 0.0, [], 0.0
    for i, query in enumerate(queries):
        total += priced.cost(query, replace(model, read_share=shares[i])) + query_price(model)
        if (i + 1) % every:
            continue
        started = time.perf_counter()
        recent = shares[max(0, i + 1 - 100):i + 1]
        change = policy.with_read_share(sum(recent) / len(recent)).propose(tree, queries[:i + 1], sample)
        deciding += time.perf_counter() - started
        if change is None:
            continue
        total += change.cost
        rewrites.append({"query": i + 1, "columns": change.columns, "builder": change.builder,
                         "break_even": change.break_even_queries, "horizon": change.horizon_queries})
        tree, priced = change.tree, StatsPricing.of(change.tree, truth)
    return {"total": total, "rewrites": rewrites, "deciding_s": deciding}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--blocks", type=int, default=256)
    parser.add_argument("--per-phase", type=int, default=100)
    parser.add_argument("--optimize-every", type=int, default=50)
    parser.add_argument("--random-attributes", action="store_true")
    parser.add_argument("--write-scales", default="1", help="the write multiplier's scales, comma-separated")
    parser.add_argument("--max-columns", default="", help="AutoColumns' max_columns, comma-separated (default: the library's)")
    parser.add_argument("--sample-rows", type=int, default=51_200, help="a managed table's sample at 256 blocks")
    parser.add_argument("--truth-rows", type=int, default=400_000)
    parser.add_argument("--prices", help="file_bytes,job_bytes,write_multiplier[,query_bytes] of a calibrated table")
    parser.add_argument("--verbose", action="store_true", help="the policies' reasons, each time they plan")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", default=os.path.join(ROOT, "benchmarks", ".data"))
    args = parser.parse_args()

    from benchmarks.harness import session
    from benchmarks.layout_spark.calibrate_file_cost import column_shares
    from benchmarks.layout_spark.tpch_data import denormalized
    from skipstone.layout import Amoeba, AutoColumns, KdTree, Query, SparkCost
    from skipstone.layout.stats_pricing import StatsPricing

    if args.verbose:
        logging.basicConfig(level=logging.WARNING, format="    %(message)s")
        logging.getLogger("skipstone.layout.auto.policy").setLevel(logging.INFO)
    spark = session("skipstone-trigger-replay")
    try:
        source = denormalized(spark, args.sf, args.cache, args.blocks)
        df = spark.read.parquet(source)
        rows = df.count()
        size = sum(os.path.getsize(os.path.join(source, n)) for n in os.listdir(source) if n.endswith(".parquet"))
        sample, truth = samples(df, rows, (args.sample_rows, args.truth_rows), args.seed, args.cache)
        if args.random_attributes:
            workload = random_attribute_workload(df, len(PHASES) * args.per_phase, args.seed)
        else:
            workload = shifting_workload(df, args.per_phase, args.seed)
    finally:
        spark.stop()
    queries = [Query.from_json(q, sample.schema) for _, q in workload]
    shares = read_shares(workload, column_shares(source))
    block_rows = max(1, rows // args.blocks)
    prices = [float(v) for v in args.prices.split(",")] if args.prices else [None, None, None]
    if len(prices) not in (3, 4):
        raise SystemExit(f"--prices: file_bytes,job_bytes,write_multiplier[,query_bytes], got {args.prices!r}")
    file_bytes, job_bytes, multiplier, query_bytes = (prices + [None])[:4]
    multiplier = write_multiplier_or_default(multiplier)
    model = SparkCost(bytes_per_row=size / rows, rows_per_file=2.0 * block_rows, file_bytes=file_bytes,
                      job_bytes=job_bytes, query_bytes=query_bytes)
    upfront = Amoeba(block_rows=block_rows).build(sample, block_rows, rows)
    static = {"kd": KdTree(block_rows=block_rows).build(sample, block_rows, rows), "amoeba": upfront}
    totals = {name: sum(priced.cost(q, replace(model, read_share=share)) + query_price(model)
                        for q, share in zip(queries, shares))
              for name, priced in ((n, StatsPricing.of(t, truth)) for n, t in static.items())}
    kind = "random attributes" if args.random_attributes else "shifting"
    print(f"{kind}, {len(queries)} queries, optimize every {args.optimize_every}; SF {args.sf:g}, {rows:,} rows, "
          f"{args.blocks} blocks; write multiplier {multiplier:.3g}, a file {model.file_price:.3g} bytes, a job "
          f"{model.job_cost:.3g}, a query {model.query_cost:.3g}; model units (simulated)")
    for name, total in totals.items():
        print(f"  {name:16s} {total:.4g} ({static[name].block_count} blocks)")
    default_columns = AutoColumns().max_columns
    for scale, columns in ((float(s), int(m)) for s in args.write_scales.split(",")
                           for m in (args.max_columns or str(default_columns)).split(",")):
        name = f"auto x{scale:g}" + (f" {columns} cols" if columns != default_columns else "")
        policy = AutoColumns(window=100, write_multiplier=scale * multiplier, cost_model=model, max_columns=columns)
        policy = policy.for_table(block_rows).with_bytes_per_row(size / rows).with_file_rows(2.0 * block_rows)
        run = replay(policy, upfront, queries, shares, sample, truth, model, args.optimize_every)
        bought = "; ".join(f"at {r['query']} ({', '.join(r['columns'])}) by {r['builder']}, break-even "
                           f"{r['break_even']:.0f}, horizon {r['horizon']:.0f}" for r in run["rewrites"]) or "none"
        print(f"  {name:16s} {run['total']:.4g}: {run['total'] / totals['amoeba']:.3f}x the upfront tree, "
              f"{run['total'] / totals['kd']:.3f}x k-d; deciding {run['deciding_s']:.1f} s; rewrites: {bought}")


if __name__ == "__main__":
    main()
