"""Calibrate ``SparkCost.file_bytes`` from a wall-clock run of `make bench-layout`.

    python -m benchmarks.layout_spark.calibrate_file_cost benchmarks/layout_spark/results/tpch-sf0.1-quick.json

Fits seconds = fixed + per_byte x bytes read + per_file x files read by least squares, over
every (method, query) of the run when it recorded them per query, else over each method's
totals (one equation per method: fewer points, a rougher answer). The per-file cost in bytes
is per_file / per_byte: the bytes Spark reads in the time it spends opening one file.
"""
from __future__ import annotations

import json
import sys

import numpy as np


def fit(result: dict) -> dict[str, float]:
    rows, seconds = [], []
    for run in result["methods"].values():
        if run.get("per_query_files"):
            for s, f, b in zip(run["per_query_s"], run["per_query_files"], run["per_query_bytes"]):
                rows.append((1.0, b, f))
                seconds.append(s)
        else:
            rows.append((float(result["queries"]), run["bytes_read"], run["files_read"]))
            seconds.append(run["query_s"])
    a, y = np.array(rows, dtype=np.float64), np.array(seconds)
    scale = a.max(axis=0)  # bytes and files differ by orders of magnitude: solve on scaled columns
    (fixed, per_byte, per_file), *_ = np.linalg.lstsq(a / scale, y, rcond=None)
    per_byte, per_file, fixed = per_byte / scale[1], per_file / scale[2], fixed / scale[0]
    return {"points": len(y), "fixed_s": float(fixed), "seconds_per_gb": float(per_byte * 1e9),
            "seconds_per_file": float(per_file),
            "file_bytes": float(per_file / per_byte) if per_byte > 0 else float("nan")}


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print(path, json.dumps(fit(json.load(open(path))), indent=1))
