"""What one rewrite of a managed table costs on Spark: a fixed cost per job plus a cost per byte.

`t.optimize` runs one Spark job that reads the replaced blocks' files, routes their rows,
writes the new files, refreshes the skipping metadata and commits. Timing rewrites of 1 to
all blocks of the same table (the blocks keep their rows, only their files and ids change)
and fitting seconds = fixed + per_byte x bytes rewritten separates the two.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np


@dataclass(frozen=True)
class RewriteBlocks:
    """A layout policy that rewrites the given blocks unchanged (new ids, new files): the
    cost of a rewrite without the cost of planning one."""

    blocks: tuple[int, ...]
    name: str = "RewriteBlocks"

    def propose(self, tree: Any, workload: Sequence[Any], sample: Any) -> Any:
        from skipstone.layout.policies import LayoutChange
        from skipstone.layout.tree import PartitionTree, map_leaves

        chosen = set(self.blocks)
        counter = iter(range(int(tree.block_ids.max()) + 1, 1 << 62))
        root = map_leaves(tree.root, lambda leaf: replace(leaf, block=next(counter)) if leaf.block in chosen else leaf)
        return LayoutChange(PartitionTree(tree.schema, root), tuple(sorted(chosen)), 0.0, 0.0, "calibration rewrite")


def kd_table(spark: Any, scale: float, blocks: int, directory: str) -> Any:
    """A managed k-d table, in ``directory``, of the denormalized TPC-H data at ``scale`` (the
    shifting benchmark's, benchmarks/.data) cut into about ``blocks`` blocks."""
    import os

    from benchmarks.layout_spark.tpch_data import denormalized
    from skipstone import Skipstone
    from skipstone.layout import KdTree

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    df = spark.read.parquet(denormalized(spark, scale, os.path.join(root, "benchmarks", ".data"), blocks))
    return Skipstone.create(spark, os.path.join(directory, "t"), df, layout=KdTree(block_rows=max(1, df.count() // blocks)))


def measure_rewrites(spark: Any, table: Any, counts: Sequence[int]) -> list[dict[str, float]]:
    """Rewrites ``count`` blocks of ``table`` for each count in turn; seconds and bytes of each."""
    from skipstone.table.optimize import apply, plan

    points = []
    for count in counts:
        files = table.current().files
        blocks = tuple(sorted({f.block for f in files})[:count])
        planned = plan(spark, table.current(), table.workload(), RewriteBlocks(blocks))  # planning (reading log and sample) is not rewriting
        rewritten = [f for f in files if f.block in set(blocks)]
        started = time.perf_counter()
        apply(spark, planned)
        seconds = time.perf_counter() - started
        points.append({"blocks": len(blocks), "files": len(rewritten), "bytes": float(sum(f.size for f in rewritten)),
                       "seconds": seconds})
        print(f"  rewrote {len(blocks)} blocks, {points[-1]['bytes'] / 1e6:.1f} MB: {seconds:.2f} s", flush=True)
    return points


def fit_rewrites(points: Sequence[dict[str, float]]) -> dict[str, float]:
    """seconds = fixed + per_byte x bytes, by least squares."""
    a = np.array([(1.0, p["bytes"]) for p in points])
    y = np.array([p["seconds"] for p in points])
    scale = a.max(axis=0)
    (fixed, per_byte), *_ = np.linalg.lstsq(a / scale, y, rcond=None)
    return {"points": len(points), "rewrite_fixed_s": float(fixed / scale[0]),
            "rewrite_seconds_per_gb": float(per_byte / scale[1] * 1e9)}
