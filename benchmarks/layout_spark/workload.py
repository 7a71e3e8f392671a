"""The interleaved TPC-H template workload as predicate JSON (`benchmarks.layout_sim.templates`)."""
from __future__ import annotations

from typing import Any

import numpy as np

from skipstone.layout.schema import LayoutData
from benchmarks.layout_sim.templates import TPCH_TEMPLATES


def template_workload(spark: Any, df: Any, queries: int, history: int, seed: int) -> tuple[list[dict], list[dict]]:
    """``queries`` template instances, templates interleaved uniformly at random, and a
    ``history`` drawn the same way with another seed (what PAW is built from)."""
    # q8 draws a part type from the data's own; nothing else of the data is needed
    types = sorted(r[0] for r in df.select("p_type").distinct().collect())
    data = LayoutData.from_columns({"p_type": np.array(types, dtype=object)})
    return _draw(data, queries, seed), _draw(data, history, seed + 1)


def _draw(data: LayoutData, count: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    names = list(TPCH_TEMPLATES)
    return [TPCH_TEMPLATES[names[rng.integers(0, len(names))]](rng, data) for _ in range(count)]
