"""Data for the simulator: denormalized TPC-H lineitem (via tpchgen-cli) and a synthetic
web-log with geo coordinates.

The TPC-H table joins lineitem with its order, customer (and its region) and part, as Amoeba
does (§6.1), keeping the columns the TPC-H selection predicates use plus a few that no query
touches. The web-log is generated: request times over 30 days, users, devices, status codes,
bytes, and a latitude/longitude drawn around a few dozen "cities" so it is skewed like OSM.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from skipstone.layout.schema import LayoutData

TPCH_TABLES = ("lineitem", "orders", "customer", "part", "nation", "region")


def tpch_denormalized(scale: float, directory: str | Path) -> LayoutData:
    """Denormalized lineitem at TPC-H scale factor `scale`, generated into `directory` once."""
    directory = Path(directory) / f"sf{scale:g}"
    if not all((directory / f"{t}.parquet").exists() for t in TPCH_TABLES):
        _generate(scale, directory)
    import pyarrow.parquet as pq

    t = {name: pq.read_table(directory / f"{name}.parquet") for name in TPCH_TABLES}
    col = lambda table, name: _numpy(t[table].column(name))  # noqa: E731
    order_row = _lookup(col("orders", "o_orderkey"), col("lineitem", "l_orderkey"))
    customer_row = _lookup(col("customer", "c_custkey"), col("orders", "o_custkey")[order_row])
    part_row = _lookup(col("part", "p_partkey"), col("lineitem", "l_partkey"))
    nation_row = _lookup(col("nation", "n_nationkey"), col("customer", "c_nationkey")[customer_row])
    region_row = _lookup(col("region", "r_regionkey"), col("nation", "n_regionkey")[nation_row])
    columns = {
        **{c: col("lineitem", c) for c in (
            "l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus",
            "l_shipdate", "l_commitdate", "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_linenumber")},
        **{c: col("orders", c)[order_row] for c in ("o_orderdate", "o_orderpriority", "o_totalprice", "o_orderstatus")},
        **{c: col("customer", c)[customer_row] for c in ("c_mktsegment", "c_acctbal")},
        "n_name": col("nation", "n_name")[nation_row],
        "r_name": col("region", "r_name")[region_row],
        **{c: col("part", c)[part_row] for c in ("p_brand", "p_type", "p_size", "p_container", "p_retailprice")},
    }
    return LayoutData.from_columns(columns)


def weblog(rows: int, seed: int = 0) -> LayoutData:
    """A synthetic web-log with skewed geo coordinates (see the module docstring)."""
    if rows <= 0:
        raise ValueError(f"rows must be positive, got {rows}")
    rng = np.random.default_rng(seed)
    cities = np.column_stack([rng.uniform(-60, 70, 40), rng.uniform(-180, 180, 40)])
    weight = rng.pareto(1.2, 40) + 0.05
    city = rng.choice(40, size=rows, p=weight / weight.sum())
    spread = rng.uniform(0.2, 3.0, 40)[city]
    devices = np.array(["android", "desktop", "ios", "tablet", "tv"])
    statuses = np.array([200, 200, 200, 200, 301, 304, 404, 500])
    return LayoutData.from_columns(
        {
            "ts": np.sort(rng.integers(0, 30 * 24 * 3600, rows)),
            "lat": np.clip(cities[city, 0] + rng.normal(0, 1, rows) * spread, -90, 90),
            "lon": np.clip(cities[city, 1] + rng.normal(0, 1, rows) * spread, -180, 180),
            "user_id": rng.zipf(1.3, rows) % 100_000,
            "device": devices[rng.choice(5, size=rows, p=[0.4, 0.25, 0.25, 0.07, 0.03])],
            "status": statuses[rng.integers(0, len(statuses), rows)],
            "bytes": np.round(rng.lognormal(8, 1.5, rows)),
            "latency_ms": np.round(rng.gamma(2.0, 40.0, rows), 1),
        }
    )


def _generate(scale: float, directory: Path) -> None:
    exe = shutil.which("tpchgen-cli") or str(Path(sys.executable).with_name("tpchgen-cli"))
    if not Path(exe).exists():
        raise RuntimeError("tpchgen-cli is not installed; run `pip install tpchgen-cli`")
    directory.mkdir(parents=True, exist_ok=True)
    tables = ",".join(TPCH_TABLES)
    subprocess.run([exe, "parquet", "-s", f"{scale:g}", f"--tables={tables}", f"--output-dir={directory}"], check=True)


def _numpy(column) -> np.ndarray:  # a pyarrow ChunkedArray
    import pyarrow as pa

    kind = column.type
    if pa.types.is_decimal(kind):
        column = column.cast(pa.float64())
    elif pa.types.is_string(kind) or pa.types.is_large_string(kind) or str(kind) == "string_view":
        column = column.cast(pa.string())
    return column.to_numpy()


def _lookup(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Row of each wanted key in `keys` (a foreign-key join)."""
    order = np.argsort(keys)
    found = order[np.searchsorted(keys[order], wanted)]
    if not np.array_equal(keys[found], wanted):
        raise ValueError("dangling foreign key in the TPC-H data")
    return found
