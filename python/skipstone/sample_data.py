"""An embedded sample dataset: a year of time-ordered weather events, written with pyarrow."""
from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

CITIES = ("Lisbon", "Madrid", "Paris", "Berlin", "Oslo", "Rome", "Vienna", "Warsaw", "Dublin", "Athens")
START = np.datetime64("2024-01-01T00:00:00", "us")
YEAR_SECONDS = 366 * 24 * 3600


def write_weather(root: str, rows: int = 300_000, files: int = 100, seed: int = 7) -> str:
    """Write ``rows`` events in ``files`` Parquet files, in time order (as ingestion lands them).

    Columns: ts (timestamp), station (int), city (string), temp (double, seasonal),
    humidity (double), wind (double, NULL when the sensor is down).
    """
    rng = np.random.default_rng(seed)
    offsets = np.sort(rng.integers(0, YEAR_SECONDS, rows))
    day = offsets / 86400.0
    season = -np.cos(2 * np.pi * (day - 15) / 366)          # coldest mid-January
    daily = -np.cos(2 * np.pi * (offsets % 86400) / 86400)   # coldest at dawn
    temp = 12 + 14 * season + 5 * daily + rng.normal(0, 3, rows)
    station = rng.integers(1, 501, rows)
    wind = rng.gamma(2.0, 4.0, rows)
    os.makedirs(root, exist_ok=True)
    for i, part in enumerate(np.array_split(np.arange(rows), files)):
        table = pa.table({
            "ts": pa.array(START + offsets[part].astype("timedelta64[s]"), pa.timestamp("us", tz="UTC")),
            "station": pa.array(station[part], pa.int32()),
            "city": pa.array([CITIES[s % len(CITIES)] for s in station[part]]),
            "temp": pa.array(np.round(temp[part], 1)),
            "humidity": pa.array(np.round(rng.uniform(20, 100, len(part)), 1)),
            "wind": pa.array(np.where(rng.random(len(part)) < 0.02, np.nan, wind[part]),
                             from_pandas=True),
        })
        pq.write_table(table, os.path.join(root, f"part-{i:05d}.parquet"))
    return root
