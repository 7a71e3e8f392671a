"""Print the simulator results of benchmarks/layout/results/*.json as Markdown tables.

    PYTHONPATH=python python -m benchmarks.layout.tables benchmarks/layout/results/tpch.json ...
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def table(path: Path) -> str:
    result = json.loads(path.read_text())
    s = result["settings"]
    lines = [
        f"**{path.stem}** — {s['data']}, {result['table_rows']:,} rows, workload {s['workload']}, "
        f"{result['queries']} queries, {s['block_rows']:g} rows per block, mean rows matching {result['matched_rows_mean']:,.0f}",
        "",
        "| method | blocks | scan ratio | × lower bound | × block bound | blocks read | rows rewritten | repartitions | total cost (M rows) | × faster than full scan |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, m in result["methods"].items():
        lines.append(
            f"| {name} | {m['blocks']} | {m['scan_ratio']:.4f} | {m['lower_bound_ratio']:.2f} | {m['block_bound_ratio']:.2f} | "
            f"{m['blocks_touched']:.1f} | {m['rows_rewritten']:,.0f} | {m['repartitions']} | {m['total_cost'] / 1e6:.1f} | "
            f"{m['speedup_over_fullscan']:.2f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print("\n\n".join(table(Path(p)) for p in sys.argv[1:]))
