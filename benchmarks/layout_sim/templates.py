"""Query templates written as predicate trees, the JSON the Spark side will log.

`tpch_queries` draws Amoeba's workload (§6.3): the selection predicates of TPC-H q3, q5, q6,
q8, q12, q14 and q19 over denormalized lineitem, with the spec's random parameters, templates
interleaved at random. Column-to-column predicates (l_commitdate < l_receiptdate) are left
out: no box can express them. `iot_queries` is a shifting workload in the spirit of Amoeba's
IoT trace (§6.5): five query patterns, one after another with overlaps, each a recent time
window plus a static filter and a changing one.

>>> import numpy as np
>>> from benchmarks.layout_sim.datasets import weblog
>>> data = weblog(2_000)
>>> len(iot_queries(data, 20, seed=1))
20
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Callable

import numpy as np

from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData

SEGMENTS = ["AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"]
REGIONS = ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"]
MODES = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"]
Tree = dict[str, Any]


def _cmp(column: str, op: str, value: Any) -> Tree:
    return {"column": column, "op": op, "value": value}


def _day(year: int, month: int = 1, day: int = 1, plus_days: int = 0) -> str:
    return (dt.date(year, month, day) + dt.timedelta(days=plus_days)).isoformat()


def _add_months(year: int, month: int, months: int) -> tuple[int, int]:
    index = year * 12 + month - 1 + months
    return index // 12, index % 12 + 1


def q3(rng: np.random.Generator, data: LayoutData) -> Tree:
    day = _day(1995, 3, 1, int(rng.integers(0, 31)))
    return {"and": [_cmp("c_mktsegment", "=", str(rng.choice(SEGMENTS))), _cmp("o_orderdate", "<", day), _cmp("l_shipdate", ">", day)]}


def q5(rng: np.random.Generator, data: LayoutData) -> Tree:
    year = int(rng.integers(1993, 1998))
    return {"and": [_cmp("r_name", "=", str(rng.choice(REGIONS))), _cmp("o_orderdate", ">=", _day(year)), _cmp("o_orderdate", "<", _day(year + 1))]}


def q6(rng: np.random.Generator, data: LayoutData) -> Tree:
    year, discount = int(rng.integers(1993, 1998)), int(rng.integers(2, 10)) / 100
    return {"and": [
        _cmp("l_shipdate", ">=", _day(year)), _cmp("l_shipdate", "<", _day(year + 1)),
        _cmp("l_discount", "BETWEEN", [round(discount - 0.01, 2), round(discount + 0.01, 2)]),
        _cmp("l_quantity", "<", int(rng.integers(24, 26))),
    ]}


def q8(rng: np.random.Generator, data: LayoutData) -> Tree:
    types = data.schema.column("p_type").categories
    return {"and": [
        _cmp("r_name", "=", str(rng.choice(REGIONS))),
        _cmp("o_orderdate", "BETWEEN", ["1995-01-01", "1996-12-31"]),
        _cmp("p_type", "=", str(rng.choice(types))),
    ]}


def q12(rng: np.random.Generator, data: LayoutData) -> Tree:
    year = int(rng.integers(1993, 1998))
    modes = [str(m) for m in rng.choice(MODES, size=2, replace=False)]
    return {"and": [_cmp("l_shipmode", "IN", modes), _cmp("l_receiptdate", ">=", _day(year)), _cmp("l_receiptdate", "<", _day(year + 1))]}


def q14(rng: np.random.Generator, data: LayoutData) -> Tree:
    year, month = int(rng.integers(1993, 1998)), int(rng.integers(1, 13))
    next_year, next_month = _add_months(year, month, 1)
    return {"and": [_cmp("l_shipdate", ">=", _day(year, month)), _cmp("l_shipdate", "<", _day(next_year, next_month))]}


def q19(rng: np.random.Generator, data: LayoutData) -> Tree:
    def branch(size: str, low_qty: int, high_size: int) -> Tree:
        brand = f"Brand#{rng.integers(1, 6)}{rng.integers(1, 6)}"
        containers = [f"{size} {c}" for c in (("CASE", "BOX", "PACK", "PKG") if size == "SM" else ("BAG", "BOX", "PKG", "PACK") if size == "MED" else ("CASE", "BOX", "PACK", "PKG"))]
        return {"and": [
            _cmp("p_brand", "=", brand), _cmp("p_container", "IN", containers),
            _cmp("l_quantity", ">=", low_qty), _cmp("l_quantity", "<=", low_qty + 10),
            _cmp("p_size", "BETWEEN", [1, high_size]), _cmp("l_shipmode", "IN", ["AIR", "AIR REG"]),
            _cmp("l_shipinstruct", "=", "DELIVER IN PERSON"),
        ]}

    return {"or": [branch("SM", int(rng.integers(1, 11)), 5), branch("MED", int(rng.integers(10, 21)), 10), branch("LG", int(rng.integers(20, 31)), 15)]}


TPCH_TEMPLATES: dict[str, Callable[[np.random.Generator, LayoutData], Tree]] = {
    "q3": q3, "q5": q5, "q6": q6, "q8": q8, "q12": q12, "q14": q14, "q19": q19,
}


def tpch_queries(data: LayoutData, count: int, seed: int = 0) -> list[Query]:
    """`count` TPC-H template instances, templates interleaved uniformly at random."""
    rng = np.random.default_rng(seed)
    names = list(TPCH_TEMPLATES)
    return [Query.from_json(TPCH_TEMPLATES[names[rng.integers(0, len(names))]](rng, data), data.schema) for _ in range(count)]


def iot_queries(data: LayoutData, count: int, seed: int = 0, patterns: int = 5) -> list[Query]:
    """A shifting workload on the web-log: pattern k is active over its stretch of the
    sequence (neighbours overlap), filters a recent time window, a static device and a
    changing range on latency or bytes or a geo box."""
    rng = np.random.default_rng(seed)
    ts = data.column("ts")
    span = float(ts.max() - ts.min()) or 1.0
    devices = data.schema.column("device").categories
    specs = [
        {"device": str(devices[k % len(devices)]), "changing": ("latency_ms", "bytes", "lat", "lon", "user_id")[k % 5]}
        for k in range(patterns)
    ]
    out = []
    for i in range(count):
        position = i / max(count - 1, 1) * (patterns - 1)
        k = int(np.clip(round(position + rng.uniform(-0.35, 0.35)), 0, patterns - 1))
        spec = specs[k]
        end = float(ts.min()) + span * (0.4 + 0.6 * i / max(count, 1))
        start = end - span * rng.uniform(0.05, 0.15)
        values = data.column(spec["changing"])
        lo_q = rng.uniform(0, 0.8)
        lo, hi = np.quantile(values, [lo_q, lo_q + rng.uniform(0.05, 0.2)])
        tree = {"and": [
            _cmp("ts", "BETWEEN", [int(start), int(end)]),
            _cmp("device", "=", spec["device"]),
            _cmp(spec["changing"], "BETWEEN", [float(lo), float(hi)]),
        ]}
        out.append(Query.from_json(tree, data.schema))
    return out
