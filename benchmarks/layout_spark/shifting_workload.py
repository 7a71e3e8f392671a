"""A workload that moves: phases of range queries, each phase on a different pair of columns.

Each query bounds both columns of its phase by a range covering a random 5–25 % of the
column's values (quantiles of a sample) at a random position, so a query matches about 0.25–6 %
of the table and a layout cut on the phase's columns skips most files, one cut on other
columns almost none. The phases follow one another without overlap, as a dashboard's filters
change when its users' questions do.

>>> rng_data = {"a": list(range(100)), "b": [float(i) for i in range(100)]}
>>> queries = phase_queries(rng_data, ("a", "b"), 3, seed=1)
>>> [sorted(c["column"] for c in q["and"]) for q in queries]
[['a', 'b'], ['a', 'b'], ['a', 'b']]
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from benchmarks.layout_spark.workload import json_value

# the column pairs of the phases, in order: ship date and quantity; price and discount; the
# customer's balance and the receipt date (no phase shares a column with another)
PHASES: tuple[tuple[str, str], ...] = (("l_shipdate", "l_quantity"), ("l_extendedprice", "l_discount"),
                                       ("c_acctbal", "l_receiptdate"))
# what every query selects besides its filter (the replay prices the bytes of these columns too)
SELECTED: tuple[str, str] = ("l_extendedprice", "l_discount")
SELECT = f"count(*), sum({SELECTED[0]} * (1 - {SELECTED[1]}))"
SHARE = (0.05, 0.25)  # each bound covers this share of the column's values, drawn uniformly


def shifting_workload(df: Any, per_phase: int, seed: int, sample_rows: int = 20_000,
                      phases: Sequence[tuple[str, str]] = PHASES) -> list[tuple[int, dict]]:
    """(phase, predicate JSON) for ``per_phase`` queries of each phase, phase after phase."""
    columns = sorted({c for p in phases for c in p})
    fraction = min(1.0, sample_rows / max(1, df.count()))
    rows = df.select(*columns).sample(fraction=fraction, seed=seed).collect()
    values = {c: [r[c] for r in rows if r[c] is not None] for c in columns}
    out: list[tuple[int, dict]] = []
    for number, pair in enumerate(phases):
        out += [(number, q) for q in phase_queries(values, pair, per_phase, seed + 101 * number)]
    return out


def random_attribute_workload(df: Any, count: int, seed: int, sample_rows: int = 20_000,
                              phases: Sequence[tuple[str, str]] = PHASES) -> list[tuple[int, dict]]:
    """The worst case for a policy that adapts: one phase of ``count`` queries, each on a pair of
    the phases' columns drawn anew, so no pattern lasts long enough to pay for a re-layout."""
    columns = sorted({c for p in phases for c in p})
    fraction = min(1.0, sample_rows / max(1, df.count()))
    rows = df.select(*columns).sample(fraction=fraction, seed=seed).collect()
    values = {c: [r[c] for r in rows if r[c] is not None] for c in columns}
    return [(0, q) for q in random_attribute_queries(values, columns, count, seed)]


def random_attribute_queries(values: Mapping[str, Sequence[Any]], columns: Sequence[str], count: int,
                             seed: int) -> list[dict]:
    """``count`` conjunctions of one BETWEEN on each of two columns drawn from ``columns`` per query.

    >>> data = {c: list(range(100)) for c in "abcd"}
    >>> queries = random_attribute_queries(data, "abcd", 50, seed=1)
    >>> len({tuple(sorted(c["column"] for c in q["and"])) for q in queries}) > 3
    True
    """
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        pair = tuple(str(c) for c in rng.choice(list(columns), size=2, replace=False))
        out += phase_queries(values, pair, 1, int(rng.integers(1 << 31)))
    return out


def phase_queries(values: Mapping[str, Sequence[Any]], pair: Sequence[str], count: int, seed: int) -> list[dict]:
    """``count`` conjunctions of one BETWEEN on each column of ``pair``, drawn from ``values``."""
    rng = np.random.default_rng(seed)
    ordered = {c: sorted(values[c]) for c in pair}
    out = []
    for _ in range(count):
        bounds = []
        for column in pair:
            share = rng.uniform(*SHARE)
            low = rng.uniform(0.0, 1.0 - share)
            sorted_values = ordered[column]
            last = len(sorted_values) - 1
            pick = lambda q: json_value(sorted_values[int(round(q * last))])  # noqa: E731
            bounds.append({"column": column, "op": "BETWEEN", "value": [pick(low), pick(low + share)]})
        out.append({"and": bounds})
    return out
