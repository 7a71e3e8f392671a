"""The user-written policy of docs/tables.md, verbatim, so the docs' example is tested."""
from __future__ import annotations

import numpy as np

from skipstone.layout import LayoutChange, Leaf, Split


class SplitHotBlock:
    """Split the block the workload reads most, on the column it filters most, at the median."""

    name = "SplitHotBlock"

    def propose(self, tree, workload, sample):
        if not workload:
            return None
        reads = sum(tree.touched(q).astype(int) for q in workload)  # per block position
        hot = int(np.argmax(reads))
        leaf = tree.leaves[hot]
        filtered = sum(np.isfinite(q.boxes.low).any(axis=0) | np.isfinite(q.boxes.high).any(axis=0)
                       for q in workload)  # per column: how many queries bound it
        column = int(np.argmax(filtered))
        rows = sample.values[tree.route(sample) == hot, column]
        if len(rows) < 2 or rows.min() == rows.max():
            return None
        cut = float(np.median(rows))
        cut = cut if cut < rows.max() else float(rows[rows < rows.max()].max())
        first = int(tree.block_ids.max()) + 1  # new blocks get new ids: their files are new
        split = Split(column, cut, Leaf(first, leaf.rows / 2), Leaf(first + 1, leaf.rows / 2))
        new_tree = tree.with_leaves(lambda b: split if b.block == leaf.block else b)
        benefit = reads[hot] * leaf.rows / 2  # roughly: half the hot block is no longer read
        if benefit <= leaf.rows:
            return None
        return LayoutChange(new_tree, (leaf.block,), benefit, cost=leaf.rows,
                            description=f"split block {leaf.block} on column {column} at {cut}")
