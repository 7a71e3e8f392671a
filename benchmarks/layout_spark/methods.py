"""The layouts the wall-clock experiment compares, as layout specs of managed tables."""
from __future__ import annotations

import random
from typing import Any, Callable, Mapping, Sequence

from skipstone.layout import (Amoeba, AmoebaAdaptive, BestOf, Hilbert, KdTree, LayoutPolicy, LayoutSpec, Paw, PawRebuild,
                              QdTree, Range, ZOrder)

from benchmarks.layout_spark.tpch_data import COLUMNS

# What a Z-order user would pick: the columns the TPC-H templates filter most (dates, quantity, region).
CURVE_COLUMNS = ("l_shipdate", "o_orderdate", "l_quantity", "r_name")
RANGE_COLUMN = "l_shipdate"

# The k-d tree's few levels reach only the first columns of its order; in the table's schema
# order those happen to be what the templates filter on. A seeded shuffle takes that luck out.
KD_SHUFFLED_COLUMNS = tuple(COLUMNS[i] for i in random.Random(0).sample(range(len(COLUMNS)), len(COLUMNS)))

# name -> spec from (block rows, the history's predicates); None: the plain files, read whole
METHODS: dict[str, Callable[[int, Sequence[Mapping[str, Any]]], LayoutSpec | None]] = {
    "fullscan": lambda b, h: None,
    "range": lambda b, h: Range(columns=[RANGE_COLUMN], block_rows=b),
    "kd": lambda b, h: KdTree(block_rows=b),
    "kd-shuffled": lambda b, h: KdTree(columns=list(KD_SHUFFLED_COLUMNS), block_rows=b),
    "zorder": lambda b, h: ZOrder(columns=list(CURVE_COLUMNS), block_rows=b),
    "hilbert": lambda b, h: Hilbert(columns=list(CURVE_COLUMNS), block_rows=b),
    "amoeba": lambda b, h: Amoeba(block_rows=b),
    "amoeba-paper": lambda b, h: Amoeba(block_rows=b, correlations=False),  # the paper's Algorithm 1
    "adaptive": lambda b, h: Amoeba(block_rows=b),  # the same upfront tree, then AmoebaAdaptive
    "adaptive-paw": lambda b, h: Amoeba(block_rows=b),  # the same, then the better of Amoeba and a PAW rebuild
    # δ = 1% of each domain, as the simulator's runs; PAW's own estimate (§IV-E) on a history
    # that mixes templates is the whole domain (halves match only across templates), which
    # leaves PAW nothing to cut on but its k-d refinement
    "paw": lambda b, h: Paw(queries=list(h), block_rows=b, delta=0.01),
    "paw-estimated": lambda b, h: Paw(queries=list(h), block_rows=b),
    "qdtree": lambda b, h: QdTree(queries=list(h), block_rows=b),
}
DEFAULT = ("fullscan", "range", "kd", "zorder", "hilbert", "amoeba", "adaptive", "adaptive-paw", "paw", "paw-estimated")

# the tables optimized during the workload: method -> policy from the window (queries). Both use
# the policies' calibrated defaults (SparkCost, the measured write multiplier).
POLICIES: dict[str, Callable[[int], LayoutPolicy]] = {
    "adaptive": lambda window: AmoebaAdaptive(window=window),
    "adaptive-paw": lambda window: BestOf((AmoebaAdaptive(window=window), PawRebuild(window=window))),
}
