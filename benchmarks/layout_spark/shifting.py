"""`make bench-layout-shifting`: layouts under a workload that moves, in wall-clock time on Spark.

    python -m benchmarks.layout_spark.shifting [--quick | --sf 10] [--per-phase N] [--peers] [--random-attributes]

Denormalized TPC-H lineitem (`tpch_data.py`) is laid out once per method; then three phases of
range queries, each on a different pair of columns (`shifting_workload.py`), run query by query
on every table in turn, so the machine's load drifts over all methods alike. Methods:

- ``fullscan``: the generated files, read whole; ``sorted``: a copy range-partitioned by ship
  date; ``kd``: a k-d tree over all columns; ``zorder``: Z-order over the six columns the phases
  filter (it knows the future's columns; the other static layouts do not); ``amoeba``: Amoeba's
  upfront tree. These never change.
- ``adaptive``: the upfront tree, optimized every ``--optimize-every`` queries by
  ``AmoebaAdaptive``; ``bounded``: the same tree optimized by ``BoundedRewrite`` (bounded units,
  a byte budget of ``--budget-share`` of the table, the rent-or-buy trigger); ``auto``: by
  ``AutoColumns`` (the whole table re-laid out over the columns the workload filters, once the
  gain over the patterns' horizon outweighs the rewrite); ``bounded-auto``: the better of the
  two at each step (``BestOf``). Their deciding (the policy's plan, reading the log and sample)
  and rewriting count in their total.
- ``clairvoyant``: per phase, PAW built from that phase's own queries, its build free: the bound
  no policy that learns from the past can beat by much.
- With ``--peers``: Delta Lake's ``OPTIMIZE ZORDER BY`` and liquid clustering and Iceberg's
  ``rewrite_data_files`` sort and zorder, on the same Spark, over the same six columns
  (`spark_peers.py`; run ``make peer-jars`` first).

With ``--calibrate`` each adaptive table is calibrated after it is created (``t.calibrate()``:
the machine's per-file, per-job and write prices stored with the table, which its policy then
prices with instead of the library's defaults); the calibration's seconds count in its creation.
With ``--learn-prices`` each adaptive table learns its prices instead from its own logged queries
and commits at every optimize (the table setting ``cost.learn``; the learning counts in deciding),
and each rewrite's event records the cost model it was priced with.

With ``--random-attributes`` the workload is the adaptive policies' worst case instead: one phase
of three times ``--per-phase`` queries, each on two of the six columns drawn anew.

Total = queries + deciding + rewriting; files and bytes read per query; every answer is checked
against the full scan's. Writes benchmarks/layout_spark/results/<name>.json and .md and
docs/img/<name>.png (files read per query over time, rewrite events marked).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from dataclasses import asdict
from typing import Any, Callable

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# after PYTHONPATH, not before it: the peers' runtime (peer_runtime.py) puts there the copy of the
# package that holds the jar of its Spark, which this checkout's python/ lacks
if os.path.join(ROOT, "python") not in sys.path:
    sys.path.append(os.path.join(ROOT, "python"))
RESULTS = os.path.join(ROOT, "benchmarks", "layout_spark", "results")
from benchmarks.layout_spark.shifting_workload import (PHASES, SELECT,  # noqa: E402 (after the path)
                                                      random_attribute_workload, shifting_workload)


def static_specs(phase_columns: list[str]) -> dict[str, Callable[[int], Any]]:
    """The layouts that never change, by name, from the block size."""
    from benchmarks.layout_spark.methods import KD_SHUFFLED_COLUMNS
    from skipstone.layout import Amoeba, KdTree, Range, ZOrder

    return {
        "fullscan": lambda b: None,
        "sorted": lambda b: Range(columns=["l_shipdate"], block_rows=b),
        "kd": lambda b: KdTree(block_rows=b),  # cuts the columns in the schema's order
        "kd-shuffled": lambda b: KdTree(columns=list(KD_SHUFFLED_COLUMNS), block_rows=b),  # as bench.py's
        "zorder": lambda b: ZOrder(columns=phase_columns, block_rows=b),
        "amoeba": lambda b: Amoeba(block_rows=b),
    }


def policies(window: int, budget_bytes: float) -> dict[str, Any]:
    """The adaptive methods: each starts from Amoeba's upfront tree and is optimized by its policy."""
    from skipstone.layout import AmoebaAdaptive, AutoColumns, BestOf, BoundedRewrite

    bounded = BoundedRewrite(window=window, budget_bytes=budget_bytes)
    auto = AutoColumns(window=window)
    return {"adaptive": AmoebaAdaptive(window=30), "bounded": bounded, "auto": auto,
            "bounded-auto": BestOf((bounded, auto))}


DEFAULT_METHODS = "fullscan,sorted,kd,zorder,amoeba,adaptive,bounded,clairvoyant"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--quick", action="store_true", help="SF 0.1, 40 queries a phase")
    parser.add_argument("--per-phase", type=int, help="queries per phase (default 300; 40 with --quick)")
    parser.add_argument("--blocks", type=int, help="blocks per table (default 256; 64 with --quick)")
    parser.add_argument("--optimize-every", type=int, default=25)
    parser.add_argument("--window", type=int, default=100, help="the bounded policy's window of recent queries")
    parser.add_argument("--budget-share", type=float, default=0.25, help="a bounded step rewrites at most this share")
    parser.add_argument("--methods", default=DEFAULT_METHODS)
    parser.add_argument("--peers", action="store_true", help="Delta Lake and Iceberg on the same Spark")
    parser.add_argument("--cache", default=os.path.join(ROOT, "benchmarks", ".data"))
    parser.add_argument("--random-attributes", action="store_true",
                        help="the worst case instead: one phase of 3 x per-phase queries, each on two of the "
                             "phases' six columns drawn anew")
    parser.add_argument("--calibrate", action="store_true",
                        help="calibrate each adaptive table's prices on this machine after creating it")
    parser.add_argument("--learn-prices", action="store_true",
                        help="each adaptive table learns its prices from its logged queries and commits (cost.learn)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--name", help="the results' name (default from the scale)")
    args = parser.parse_args()
    scale = 0.1 if args.quick else args.sf
    per_phase = args.per_phase or (40 if args.quick else 300)
    blocks = args.blocks or (64 if args.quick else 256)
    name = args.name or f"shifting-sf{scale:g}" + ("-quick" if args.quick else "")

    from benchmarks.harness import session
    from benchmarks.layout_spark.bench import MethodRun
    from benchmarks.layout_spark.shifting_report import write_report
    from benchmarks.layout_spark.tpch_data import denormalized

    extra = {}
    if args.peers:
        from benchmarks.layout_spark.spark_peers import session_configs
        extra = session_configs()
    spark = session("skipstone-bench-shifting", extra)
    source = denormalized(spark, scale, args.cache, blocks)
    df = spark.read.parquet(source)
    rows = df.count()
    block_rows = max(1, rows // blocks)
    source_files = [os.path.join(source, n) for n in os.listdir(source) if n.endswith(".parquet")]
    source_bytes = sum(os.path.getsize(p) for p in source_files)
    phase_columns = [c for pair in PHASES for c in pair]
    if args.random_attributes:
        workload = random_attribute_workload(df, len(PHASES) * per_phase, args.seed)
        phases, per_phase = [sorted(phase_columns)], len(PHASES) * per_phase
    else:
        workload = shifting_workload(df, per_phase, args.seed)
        phases = [list(p) for p in PHASES]
    methods = args.methods.split(",")
    work = tempfile.mkdtemp(prefix="skipstone-bench-shifting-")
    print(f"{name}: {rows:,} rows, {source_bytes / 1e6:.0f} MB, {blocks} blocks of {block_rows:,} rows, "
          f"{len(phases)} phases of {per_phase} queries; tables in {work}", flush=True)
    result: dict[str, Any] = {"name": name, "scale": scale, "rows": rows, "bytes": source_bytes, "blocks": blocks,
                              "block_rows": block_rows, "per_phase": per_phase, "phases": phases,
                              "optimize_every": args.optimize_every, "window": args.window,
                              "budget_share": args.budget_share, "seed": args.seed, "calibrate": args.calibrate, "learn_prices": args.learn_prices,
                  "load_average": [os.getloadavg()]}
    try:
        bench = ShiftingBench(spark, df, source, source_files, block_rows, work, args.calibrate, args.learn_prices)
        bench.create(methods, phase_columns, workload, policies(args.window, args.budget_share * source_bytes))
        if args.peers:
            bench.create_peers(phase_columns, source_bytes // blocks)
        bench.run(workload, args.optimize_every)
        result["methods"] = {m: {**asdict(r), "optimize_s": r.optimize_s, "total_s": r.total_s}
                             for m, r in bench.runs.items()}
        result["events"] = bench.events
        result["calibrations"] = bench.calibrations
        result["load_average"].append(os.getloadavg())
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)
    write_report(result, RESULTS, os.path.join(ROOT, "docs", "img"))


class ShiftingBench:
    """The tables of one run and the loop that queries them in turn."""

    def __init__(self, spark: Any, df: Any, source: str, source_files: list[str], block_rows: int, work: str,
                 calibrate: bool = False, learn_prices: bool = False) -> None:
        from benchmarks.layout_spark.bench import MethodRun

        self.spark, self.df, self.source, self.block_rows, self.work = spark, df, source, block_rows, work
        self.source_files = source_files
        self.source_bytes = sum(os.path.getsize(p) for p in source_files)
        self.calibrate = calibrate  # adaptive tables price with this machine's measured costs
        self.calibrations: dict[str, Any] = {}  # method -> the prices t.calibrate() stored
        self.learn_prices = learn_prices  # adaptive tables learn their prices from their own log (cost.learn)
        self.run_type = MethodRun
        self.runs: dict[str, Any] = {}
        self.tables: dict[str, Any] = {}  # method -> managed table (clairvoyant: one per phase, "clairvoyant/<n>")
        self.policies: dict[str, Any] = {}
        self.peers: dict[str, Any] = {}
        self._sample: Any = None  # of the source, for choosing the clairvoyant layouts
        self.events: list[dict[str, Any]] = []  # rewrites: query number, method, blocks, bytes, seconds, unit

    def create(self, methods: list[str], phase_columns: list[str], workload: list[tuple[int, dict]],
               adaptive: dict[str, Any]) -> None:
        from skipstone import Skipstone
        from skipstone.layout import Amoeba

        specs = static_specs(phase_columns)
        for method in methods:
            run = self.runs[method] = self.run_type(method)
            started = time.perf_counter()
            if method == "clairvoyant":
                for phase in sorted({p for p, _ in workload}):
                    queries = [q for p, q in workload if p == phase]
                    spec = self._clairvoyant_spec(queries)
                    print(f"  clairvoyant for phase {phase}: {type(spec).__name__} {getattr(spec, 'columns', None) or ''}",
                          flush=True)
                    key = f"clairvoyant/{phase}"
                    self.tables[key] = Skipstone.create(self.spark, os.path.join(self.work, "clairvoyant", str(phase)),
                                                        self.df, layout=spec)
                run.blocks = self.tables["clairvoyant/0"].tree().block_count
            elif method in adaptive:
                self.policies[method] = adaptive[method]
                self.tables[method] = Skipstone.create(self.spark, os.path.join(self.work, method), self.df,
                                                       layout=Amoeba(block_rows=self.block_rows))
                run.blocks = self.tables[method].tree().block_count
                if self.calibrate:
                    prices = self.tables[method].calibrate().prices
                    self.calibrations[method] = asdict(prices)
                    print(f"  calibrated {method}: {prices}", flush=True)
                if self.learn_prices:
                    self.tables[method].set_properties({"cost.learn": "true"})
            else:
                spec = specs[method](self.block_rows)
                if spec is not None:
                    self.tables[method] = Skipstone.create(self.spark, os.path.join(self.work, method), self.df,
                                                           layout=spec)
                    run.blocks = self.tables[method].tree().block_count
            run.create_s = time.perf_counter() - started
            print(f"  created {method}: {run.create_s:.1f} s, {run.blocks} blocks", flush=True)

    def _clairvoyant_spec(self, queries: list[dict]) -> Any:
        """The cheapest, on a sample and priced as Spark pays, of the layouts one would build
        knowing the phase's queries: PAW from them, a k-d tree over their columns, a range
        partitioning on each of their columns."""
        from skipstone.layout import KdTree, Paw, Query, Range, SparkCost
        from skipstone.table.sample import draw_sample

        columns = sorted({c["column"] for q in queries for c in q["and"]})
        rows = self.df.count()
        if self._sample is None:
            self._sample = draw_sample(self.df, self.df.columns, rows, 50_000, seed=1)
        cost = SparkCost(bytes_per_row=self.source_bytes / rows)
        candidates = [Paw(queries=queries, block_rows=self.block_rows, delta=0.01),
                      KdTree(columns=columns, block_rows=self.block_rows),
                      *(Range(columns=[c], block_rows=self.block_rows) for c in columns)]

        def priced(spec: Any) -> float:
            tree = spec.build(self._sample, self.block_rows, rows)
            return sum(tree.cost(Query.from_json(q, tree.schema), cost) for q in queries)

        return min(candidates, key=priced)

    def create_peers(self, columns: list[str], target_bytes: int) -> None:
        from benchmarks.layout_spark.spark_peers import PEERS, create_peer

        for name in PEERS:
            started = time.perf_counter()
            self.peers[name] = create_peer(self.spark, name, self.source, os.path.join(self.work, "peers"), columns,
                                           target_bytes)
            run = self.runs[name] = self.run_type(name, blocks=self.peers[name].files)
            run.create_s = time.perf_counter() - started
            print(f"  created {name}: {run.create_s:.1f} s, {run.blocks} files", flush=True)

    def run(self, workload: list[tuple[int, dict]], optimize_every: int) -> None:
        for i, (phase, tree) in enumerate(workload):
            reference = None
            for method, run in self.runs.items():
                answer = self._query(method, run, phase, tree)
                reference = answer if reference is None else reference
                run.wrong_answers += int(answer != reference)
                if method in self.policies and (i + 1) % optimize_every == 0:
                    self._optimize(method, run, i + 1)
            self.spark.conf.set("spark.skipstone.enabled", "true")
            if (i + 1) % 10 == 0 or i + 1 == len(workload):
                print(f"  query {i + 1}/{len(workload)} (phase {phase}): "
                      + ", ".join(f"{m} {r.per_query_files[-1]}f" for m, r in self.runs.items()), flush=True)

    def _query(self, method: str, run: Any, phase: int, tree: dict) -> Any:
        import skipstone
        from benchmarks.layout_spark.predicate_sql import to_sql

        condition = to_sql(tree)
        if method in self.peers:
            from benchmarks.layout_spark.spark_peers import run_query

            self.spark.conf.set("spark.skipstone.enabled", "false")
            answer, seconds, files, size = run_query(self.spark, self.peers[method], condition, SELECT)
            run.count(seconds, files, self.peers[method].files, size, self.peers[method].bytes)
            return answer
        table = self.tables.get(f"clairvoyant/{phase}" if method == "clairvoyant" else method)
        root = table.root if table is not None else self.source
        self.spark.conf.set("spark.skipstone.enabled", str(table is not None).lower())
        started = time.perf_counter()
        answer = self.spark.sql(f"SELECT {SELECT} FROM parquet.`{root}` WHERE {condition}").collect()
        seconds = time.perf_counter() - started
        if table is not None:
            stats = skipstone.last_query_stats(self.spark)
            run.count(seconds, stats.files_total - stats.files_skipped, stats.files_total,
                      stats.bytes_total - stats.bytes_skipped, stats.bytes_total)
        else:
            n = len(self.source_files)
            run.count(seconds, n, n, self.source_bytes, self.source_bytes)
        return answer

    def _optimize(self, method: str, run: Any, query: int) -> None:
        planned, result, decided, seconds = run.optimize(self.spark, self.tables[method], self.policies[method])
        if planned is None:
            return
        change = planned.change
        fields = change.history_fields() if hasattr(change, "history_fields") else {}
        self.events.append({"query": query, "method": method, "blocks": len(change.rewritten_blocks),
                            "rows": result.rows_rewritten, "bytes_read": result.bytes_read, "seconds": seconds,
                            "decided_s": decided, "cost_model": planned.cost_model, **fields})
        print(f"  optimize {method} after query {query}: decided in {decided:.1f} s, rewrote "
              f"{len(change.rewritten_blocks)} blocks ({result.rows_rewritten:,} rows) in {seconds:.1f} s: "
              f"{change.description[:160]}", flush=True)

if __name__ == "__main__":
    main()
