"""The prices a table would learn from its log (``t.calibrate(source="log")``) had it run a
shifting benchmark's queries: the fit of ``skipstone.table.learned_prices`` on a run's results.

    python -m benchmarks.layout_spark.learned_from_run benchmarks/layout_spark/results/shifting-sf10-600.json \\
        --method auto --queries 0:250 [--rewrites 1]

Each query of ``--method`` in ``--queries`` (a half-open range) is a logged read: its files and
bytes read as the run recorded them, its duration, and the share of the bytes in the columns its
phase reads (its filter columns and what the benchmark selects, by the source's Parquet footers,
as a table's log measures it). The first ``--rewrites`` rewrite events of the method are the
commits (a whole-table rewrite of the run's bytes); 0 takes none, which the fit refuses. Prints the
prices and the ``--prices`` argument of ``trigger_replay`` that replays with them. Needs the
source data the run read (benchmarks/.data), no Spark.
"""
from __future__ import annotations

import argparse
import json
import os

from benchmarks.layout_spark.calibrate_file_cost import column_shares
from benchmarks.layout_spark.shifting_workload import SELECTED
from skipstone.layout.cost_model import TablePrices
from skipstone.table.calibration import Calibration, Timing
from skipstone.table.learned_prices import fit_learned

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "benchmarks", ".data")


def learned(result: dict, method: str, first: int, last: int, rewrites: int, shares: dict[str, float],
            prior: TablePrices) -> Calibration:
    """The fit on ``method``'s queries ``first`` to ``last`` (exclusive) and its first ``rewrites`` rewrites."""
    n, run = result["per_phase"], result["methods"][method]
    share = [sum(shares[c] for c in set(columns) | set(SELECTED)) for columns in result["phases"]]
    reads = [Timing("read", run["per_query_bytes"][i] * share[i // n], run["per_query_files"][i], run["per_query_s"][i])
             for i in range(first, last)]
    events = [e for e in result.get("events", []) if e["method"] == method][:rewrites]
    writes = [Timing("write", result["bytes"] * e["rows"] / result["rows"], e["blocks"], e["seconds"]) for e in events]
    return fit_learned(reads, writes, prior)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results")
    parser.add_argument("--method", default="auto")
    parser.add_argument("--queries", default="", help="first:last, half-open (default: all of the method's)")
    parser.add_argument("--rewrites", type=int, default=1)
    parser.add_argument("--file-bytes", type=float, help="the prior's price per file (default: the library's)")
    args = parser.parse_args()
    with open(args.results) as f:
        result = json.load(f)
    total = len(result["methods"][args.method]["per_query_s"])
    first, last = (int(v) for v in args.queries.split(":")) if args.queries else (0, total)
    scale = f"{result['scale']:g}"
    shares = column_shares(os.path.join(DATA, f"lineitem-denormalized-sf{scale}-{result['blocks']}"))
    fit = learned(result, args.method, first, last, args.rewrites, shares, TablePrices(file_bytes=args.file_bytes))
    p = fit.prices
    print(f"{args.method}, queries {first}-{last}, {args.rewrites} rewrites: {p}")
    print(f"  a query {fit.query_seconds:.3f} s + {fit.seconds_per_file * 1e3:.2f} ms a file + "
          f"{fit.read_seconds_per_gb:.2f} s a GB of the columns read; a rewrite {fit.write_seconds_per_gb:.1f} s a GB "
          f"+ {fit.job_seconds:.1f} s")
    print(f"  --prices {p.file_bytes:.0f},{p.job_bytes:.0f},{p.write_multiplier:.3f},{p.query_bytes:.0f}")


if __name__ == "__main__":
    main()
