"""A policy that always proposes a change, whatever the workload: split the largest block on the
first column at its sample median. Tests of what happens around an optimize need one that does
not depend on logged queries."""
from __future__ import annotations

import numpy as np

from skipstone.layout import LayoutChange, Leaf, Split


class SplitLargestBlock:
    name = "SplitLargestBlock"

    def propose(self, tree, workload, sample):
        position = int(np.argmax([leaf.rows for leaf in tree.leaves]))
        leaf = tree.leaves[position]
        values = sample.values[tree.route(sample) == position, 0]
        if len(values) < 2 or values.min() == values.max():
            return None
        cut = float(np.median(values))
        cut = cut if cut < values.max() else float(values[values < values.max()].max())
        first = int(tree.block_ids.max()) + 1
        split = Split(0, cut, Leaf(first, leaf.rows / 2), Leaf(first + 1, leaf.rows / 2))
        return LayoutChange(tree.with_leaves(lambda b: split if b.block == leaf.block else b), (leaf.block,),
                            benefit=1.0, cost=leaf.rows, description=f"split block {leaf.block} at {cut}")
