"""Which Skipstone indexes to build over a dataset: every kind, over every column it takes.

Besides the built-in kinds this defines two user rule indexes that probe the rule matcher
(issue 8, class 5): a pattern `int({col})` must not match other casts, and a pattern literal
`{col} >= 0.5` must not match `x >= 0`.
"""
from __future__ import annotations

import random
from typing import Any

from fuzz import udfs
from user_types import HalfFlag, IntPartRange, LengthRange  # the test suite's user types
from fuzz.columns import Leaf
from skipstone import (
    BloomFilter, Formatted, GapList, GeoBox, Hybrid, IndexType, Metric, MetricDist, MinMax, Prefix,
    Suffix, ValueList, geo_minmax_mapping,
)





ABSDIFF = Metric("fz_absdiff", "abs(CAST({a} AS DOUBLE) - CAST({b} AS DOUBLE))", tolerance=1e-9)


def candidates(rng: random.Random, columns: list[Leaf], case_sensitive: bool = False) -> list[IndexType]:
    """Every index that fits the columns; the build takes a random subset of these."""
    out: list[IndexType] = []
    for leaf in columns:
        name = leaf.index_name
        if name is None:
            continue
        if not case_sensitive and rng.random() < 0.5:  # names resolve case-insensitively: ask in another case
            name = name.swapcase() if rng.random() < 0.5 else name.lower()
        fam = leaf.family
        if fam in ("integral", "decimal", "floating", "date", "timestamp", "timestamp_ntz"):
            out += [MinMax(name), ValueList(name, max_size=rng.choice([2, 4, 1000])), BloomFilter(name),
                    Hybrid(name, threshold=rng.choice([1, 3, 100])), GapList(name, gaps=rng.choice([1, 2, 4]))]
        if fam == "decimal":
            out.append(IntPartRange(name))
        if fam in ("integral", "decimal", "floating"):
            out.append(HalfFlag(name))
        if fam in ("integral", "floating") and leaf.path[0] not in ("lat", "lon"):
            origin = rng.choice([0.0, 1.0, 1e15, -3.5])
            out.append(MetricDist(name, ABSDIFF, origin))
        if fam == "integral":
            out.append(Formatted(name, udfs.fz_str, "fz_str"))
        if fam == "string":
            out += [MinMax(name), ValueList(name, max_size=rng.choice([2, 1000])), BloomFilter(name),
                    Hybrid(name, threshold=rng.choice([1, 100])), Prefix(name, rng.choice([1, 2, 3])),
                    Suffix(name, rng.choice([1, 2])), Formatted(name, "lower({col})"),
                    Formatted(name, udfs.fz_tag, "fz_tag"), Formatted(name, udfs.fz_len, "fz_len", type="int"),
                    MetricDist(name, Metric.levenshtein(), rng.choice(["kitten", "", "ab"])), LengthRange(name)]
        if fam == "boolean":
            out += [MinMax(name), ValueList(name)]
    names = {leaf.path for leaf in columns}
    if ("lat",) in names and ("lon",) in names:
        out.append(GeoBox("lat", "lon", boxes=rng.choice([1, 2, 4])))
        out.append(geo_minmax_mapping())  # answers through MinMax(lat), MinMax(lon), when built
    return out


def choose(rng: random.Random, columns: list[Leaf], case_sensitive: bool = False) -> list[IndexType]:
    """A random subset of the candidates (each at most once; build() rejects duplicates)."""
    pool = candidates(rng, columns, case_sensitive)
    share = rng.choice([0.3, 0.6, 1.0])
    chosen: list[IndexType] = []
    seen: set[Any] = set()
    for ix in pool:
        key = (type(ix).__name__, tuple(c.lower() for c in ix.columns), getattr(ix, "name", None),
               getattr(ix, "fn", None) if isinstance(getattr(ix, "fn", None), str) else None)
        if key in seen or rng.random() > share:
            continue
        seen.add(key)
        chosen.append(ix)
    if any(isinstance(ix, type(geo_minmax_mapping())) for ix in chosen):
        for c in ("lat", "lon"):
            if not any(isinstance(ix, MinMax) and ix.column.lower() == c for ix in chosen):
                chosen.append(MinMax(c))
    return chosen or pool[:1]
