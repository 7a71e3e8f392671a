"""Workload generators for the simulator: PAW's range workloads and the worst cases of Amoeba.

All ranges are in encoded units; "fraction of the domain" means of the column's min..max in
the sample, as in PAW's Table III (γ: the largest query range, δ: the distance threshold).

>>> import numpy as np
>>> from skipstone.layout.schema import LayoutData
>>> data = LayoutData.from_columns({"x": np.arange(1000.0), "y": np.arange(1000.0)})
>>> history = uniform_ranges(data, 3, ["x", "y"], max_range=0.1, seed=1)
>>> future = delta_similar(data, history, delta=0.01, seed=2)
>>> bool(max(query_distance(data, a, b) for a, b in zip(history, future)) <= 0.01)
True
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from skipstone.layout.boxes import BoxSet
from skipstone.layout.query_distance import Domain, query_distance
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData


def uniform_ranges(
    data: LayoutData, count: int, columns: Sequence[str], max_range: float = 0.1, seed: int = 0
) -> list[Query]:
    """PAW's uniform generator: centres uniform over the domain, each side up to γ long."""
    domain, dims = Domain.of(data), _dims(data, columns)
    rng = np.random.default_rng(seed)
    centres = domain.low[dims] + rng.random((count, len(dims))) * domain.length[dims]
    return _boxes_around(data, domain, dims, centres, max_range, rng)


def skewed_ranges(
    data: LayoutData,
    count: int,
    columns: Sequence[str],
    max_range: float = 0.1,
    centres: int = 10,
    sigma: float | None = None,
    seed: int = 0,
) -> list[Query]:
    """PAW's skewed generator: a Gaussian mixture around `centres` data points, with
    standard deviation σ (default 10% of γ) of the domain length."""
    domain, dims = Domain.of(data), _dims(data, columns)
    rng = np.random.default_rng(seed)
    sigma = 0.1 * max_range if sigma is None else sigma
    anchors = data.values[rng.choice(data.rows, size=centres, replace=data.rows < centres)][:, dims]
    picks = anchors[rng.integers(0, centres, size=count)]
    points = picks + rng.normal(0.0, sigma, size=picks.shape) * domain.length[dims]
    return _boxes_around(data, domain, dims, points, max_range, rng)


def delta_similar(data: LayoutData, history: Sequence[Query], delta: float, seed: int = 0) -> list[Query]:
    """A future workload δ-similar to `history` (Definition 2): every bound of every query
    moved by at most δ·(domain length), one future query per historical one."""
    domain = Domain.of(data)
    rng = np.random.default_rng(seed)
    out = []
    for q in history:
        shift_low = rng.uniform(-delta, delta, size=q.boxes.low.shape) * domain.length
        shift_high = rng.uniform(-delta, delta, size=q.boxes.high.shape) * domain.length
        low = np.where(np.isfinite(q.boxes.low), q.boxes.low + shift_low, q.boxes.low)
        high = np.where(np.isfinite(q.boxes.high), q.boxes.high + shift_high, q.boxes.high)
        high = np.maximum(high, low + 1e-9 * domain.length)
        out.append(Query(BoxSet(low, high)))
    return out


def random_attribute_ranges(
    data: LayoutData, count: int, selectivity: float = 0.1, columns: Sequence[str] | None = None, seed: int = 0
) -> list[Query]:
    """Amoeba's first worst case: each query a range of the given selectivity on a random
    attribute."""
    rng = np.random.default_rng(seed)
    dims = _dims(data, columns if columns is not None else data.schema.names)
    return [_quantile_range(data, int(rng.choice(dims)), selectivity, rng) for _ in range(count)]


def one_shot_attributes(
    data: LayoutData, attributes: int = 4, repeats: int = 5, selectivity: float = 0.1, seed: int = 0
) -> list[Query]:
    """Amoeba's second worst case: a query on a random attribute run `repeats` times, then the
    same on another attribute, `attributes` times (4 x 5 = 20 queries)."""
    rng = np.random.default_rng(seed)
    chosen = rng.choice(data.schema.width, size=min(attributes, data.schema.width), replace=False)
    out: list[Query] = []
    for d in chosen:
        q = _quantile_range(data, int(d), selectivity, rng)
        out += [q] * repeats
    return out


def _dims(data: LayoutData, columns: Sequence[str]) -> np.ndarray:
    if not columns:
        raise ValueError("a workload needs at least one column")
    return np.array([data.schema.index(c) for c in columns])


def _boxes_around(
    data: LayoutData, domain: Domain, dims: np.ndarray, centres: np.ndarray, max_range: float, rng: np.random.Generator
) -> list[Query]:
    if not 0 < max_range <= 1:
        raise ValueError(f"max_range is a fraction of the domain in (0, 1], got {max_range}")
    halves = rng.uniform(0, max_range, size=centres.shape) * domain.length[dims] / 2
    out = []
    for centre, half in zip(centres, halves):
        low = np.full(data.schema.width, -np.inf)
        high = np.full(data.schema.width, np.inf)
        low[dims], high[dims] = centre - half, centre + half
        out.append(Query(BoxSet(low[None, :], high[None, :])))
    return out


def _quantile_range(data: LayoutData, dim: int, selectivity: float, rng: np.random.Generator) -> Query:
    start = rng.uniform(0, 1 - selectivity)
    lo, hi = np.quantile(data.values[:, dim], [start, start + selectivity])
    low = np.full(data.schema.width, -np.inf)
    high = np.full(data.schema.width, np.inf)
    low[dim], high[dim] = data.schema.columns[dim].previous(float(lo)), float(hi)
    return Query(BoxSet(low[None, :], high[None, :]))
