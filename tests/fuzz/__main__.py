"""`python -m fuzz --cases 100000 --seed 1` (from tests/, or with tests/ on PYTHONPATH)."""
from __future__ import annotations

import argparse
import os
import sys


def main() -> int:
    parser = argparse.ArgumentParser(prog="fuzz", description="Skipstone's differential fuzzer")
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-dataset", type=int, default=1500, help="predicates checked per generated dataset")
    parser.add_argument("--out", default="fuzz-out", help="where summary.json goes")
    parser.add_argument("--no-shrink", action="store_true")
    args = parser.parse_args()

    from fuzz import runner

    summary = runner.run(args.cases, args.seed, per_dataset=args.per_dataset, shrink_failures=not args.no_shrink,
                         log=lambda s: print(s, flush=True), progress=lambda s: s.save(args.out))
    summary.save(args.out)
    from fuzz.timing import TIMER

    print(summary.text())
    print(f"time: {TIMER.text()}")
    print(f"summary written to {os.path.join(args.out, 'summary.json')}")
    return 1 if summary.wrong else 0


if __name__ == "__main__":
    sys.exit(main())
