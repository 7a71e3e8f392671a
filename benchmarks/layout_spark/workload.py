"""The workloads of the wall-clock experiment as predicate JSON: Amoeba's interleaved TPC-H
templates (`benchmarks.layout_sim.templates`) and a worst case of random attributes and ranges."""
from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np

from skipstone.layout.schema import LayoutData
from benchmarks.layout_sim.templates import TPCH_TEMPLATES

# the ordered columns of the denormalized table a random query may filter on
RANDOM_COLUMNS = ("l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_shipdate", "l_commitdate",
                  "l_receiptdate", "l_linenumber", "o_orderdate", "o_totalprice", "c_acctbal", "p_size",
                  "p_retailprice")


def template_workload(spark: Any, df: Any, queries: int, history: int, seed: int) -> tuple[list[dict], list[dict]]:
    """``queries`` template instances, templates interleaved uniformly at random, and a
    ``history`` drawn the same way with another seed (what PAW is built from)."""
    # q8 draws a part type from the data's own; nothing else of the data is needed
    types = sorted(r[0] for r in df.select("p_type").distinct().collect())
    data = LayoutData.from_columns({"p_type": np.array(types, dtype=object)})
    return _draw(data, queries, seed), _draw(data, history, seed + 1)


def random_workload(df: Any, queries: int, seed: int, sample_rows: int = 20_000) -> list[dict]:
    """Amoeba's worst case: each query a range on an attribute drawn uniformly at random,
    between two quantiles drawn uniformly at random (on average a third of the table), so
    no layout learnt from past queries helps the next one."""
    rng = np.random.default_rng(seed)
    fraction = min(1.0, sample_rows / max(1, df.count()))
    sample = df.select(*RANDOM_COLUMNS).sample(fraction=fraction, seed=seed).collect()
    out = []
    for _ in range(queries):
        column = RANDOM_COLUMNS[rng.integers(0, len(RANDOM_COLUMNS))]
        values = sorted(r[column] for r in sample if r[column] is not None)
        low, high = sorted(rng.random(2))
        bounds = [json_value(values[int(q * (len(values) - 1))]) for q in (low, high)]
        out.append({"column": column, "op": "BETWEEN", "value": bounds})
    return out


def json_value(value: Any) -> Any:
    """A column's value as predicate JSON holds it: dates as ISO text, numbers as numbers."""
    if isinstance(value, dt.date):
        return value.isoformat()
    return float(value) if not isinstance(value, int) else value


def _draw(data: LayoutData, count: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    names = list(TPCH_TEMPLATES)
    return [TPCH_TEMPLATES[names[rng.integers(0, len(names))]](rng, data) for _ in range(count)]
