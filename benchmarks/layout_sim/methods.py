"""The layouts the simulator compares, each built from a sample (and a history when it is
workload-aware), then filled with the table's rows.

>>> sorted(METHODS)[:4]
['adaptive', 'amoeba', 'amoeba-hinted', 'fullscan']
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from skipstone.layout.builders.amoeba_upfront import build_amoeba_tree
from skipstone.layout.builders.data_aware import build_kd_tree, build_range_tree
from skipstone.layout.builders.paw import PawOptions, build_paw_tree
from skipstone.layout.builders.paw import domain_delta
from skipstone.layout.builders.paw_plugins import tune_storage, with_precise_descriptors
from skipstone.layout.builders.qdtree import build_qd_tree
from skipstone.layout.curves import build_curve_layout
from skipstone.layout.boxes import BoxSet
from skipstone.layout.layout import Layout
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.tree import Leaf, PartitionTree


@dataclass(frozen=True, eq=False)
class BuildContext:
    data: LayoutData  # the whole table
    sample: LayoutData  # what builders see
    history: Sequence[Query]  # past queries, for workload-aware builders
    block_rows: float
    range_column: str
    columns: Sequence[str] | None  # attributes the data-aware trees and curves use
    delta: float = 0.01
    alpha: float = 4.0
    seed: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def total_rows(self) -> float:
        return float(self.data.rows)


def _fullscan(c: BuildContext) -> Layout:
    return PartitionTree(c.data.schema, Leaf(0, 0.0))


def _hinted_weights(c: BuildContext) -> dict[str, float]:
    """Column frequencies in the history: the workload hint of Amoeba §6.4."""
    counts: Counter[str] = Counter()
    for q in c.history:
        if q.boxes.is_empty:
            continue  # matches nothing: nothing to copy
        low, high = q.bounding_box()
        for d in np.flatnonzero(np.isfinite(low) | np.isfinite(high)):
            counts[c.data.schema.columns[d].name] += 1
    return dict(counts) or {c.range_column: 1.0}


def _worst_case(c: BuildContext) -> list[Query]:
    """Q*_F of PAW Lemma 1: each historical query's bounding box grown by δ on its bounded sides."""
    delta = domain_delta(c.sample, c.delta)
    out = []
    for q in c.history:
        if q.boxes.is_empty:
            continue  # matches nothing: nothing to copy
        low, high = q.bounding_box()
        low = np.where(np.isfinite(low), low - delta, low)
        high = np.where(np.isfinite(high), high + delta, high)
        out.append(Query(BoxSet(low[None, :], high[None, :])))
    return out


def _shuffled_columns(c: BuildContext) -> list[str]:
    """The k-d tree's columns in a random order (by ``seed``): which columns its few levels
    reach is luck of the schema's order, which this takes out of a comparison."""
    names = list(c.columns) if c.columns else [col.name for col in c.data.schema.columns]
    return [names[i] for i in np.random.default_rng(c.seed).permutation(len(names))]


METHODS: dict[str, Callable[[BuildContext], Layout]] = {
    "fullscan": _fullscan,
    "range": lambda c: build_range_tree(c.sample, c.range_column, c.block_rows, c.total_rows),
    "kd": lambda c: build_kd_tree(c.sample, c.block_rows, c.total_rows, c.columns),
    "kd-shuffled": lambda c: build_kd_tree(c.sample, c.block_rows, c.total_rows, _shuffled_columns(c)),
    "amoeba": lambda c: build_amoeba_tree(c.sample, c.block_rows, c.total_rows, c.columns, seed=c.seed),
    "amoeba-paper": lambda c: build_amoeba_tree(c.sample, c.block_rows, c.total_rows, c.columns, seed=c.seed,
                                                correlations=False),
    "amoeba-hinted": lambda c: build_amoeba_tree(c.sample, c.block_rows, c.total_rows, weights=_hinted_weights(c), seed=c.seed),
    "adaptive": lambda c: build_amoeba_tree(c.sample, c.block_rows, c.total_rows, c.columns, seed=c.seed),
    "zorder": lambda c: build_curve_layout(c.sample, "zorder", c.block_rows, c.total_rows, c.columns),
    "hilbert": lambda c: build_curve_layout(c.sample, "hilbert", c.block_rows, c.total_rows, c.columns),
    "qdtree": lambda c: build_qd_tree(c.sample, c.history, c.block_rows, c.total_rows),
    # PAW's experiments run without the data-aware refinement unless they say otherwise (§VI-E)
    "paw": lambda c: build_paw_tree(c.sample, c.history, c.block_rows, c.delta, c.total_rows, PawOptions(c.alpha, refine=False)),
    "paw-refined": lambda c: build_paw_tree(c.sample, c.history, c.block_rows, c.delta, c.total_rows, PawOptions(c.alpha)),
    # PAW §V-B, Figure 23b: 20% extra space for copies of worst-case (δ-extended) query results
    "paw-tuned": lambda c: tune_storage(
        build_paw_tree(c.sample, c.history, c.block_rows, c.delta, c.total_rows, PawOptions(c.alpha, refine=False)).with_counts(c.data),
        c.data, _worst_case(c), 0.2 * c.total_rows,
    ),
    "paw-precise": lambda c: with_precise_descriptors(
        build_paw_tree(c.sample, c.history, c.block_rows, c.delta, c.total_rows, PawOptions(c.alpha, refine=False)), c.data, 3
    ),
}

WORKLOAD_AWARE = {"qdtree", "paw", "paw-precise", "paw-tuned", "amoeba-hinted"}
