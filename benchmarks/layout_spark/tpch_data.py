"""Denormalized TPC-H lineitem as Parquet, joined by Spark from what `tpchgen-cli` writes.

The columns are those of the simulator's `benchmarks.layout_sim.datasets.tpch_denormalized`
(lineitem with its order, customer, nation, region and part, as Amoeba §6.1 does), so the
wall-clock and simulated experiments run the same workload on the same table.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Any

TABLES = ("lineitem", "orders", "customer", "part", "nation", "region")
COLUMNS = (
    "l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus",
    "l_shipdate", "l_commitdate", "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_linenumber",
    "o_orderdate", "o_orderpriority", "o_totalprice", "o_orderstatus",
    "c_mktsegment", "c_acctbal", "n_name", "r_name",
    "p_brand", "p_type", "p_size", "p_container", "p_retailprice",
)


def generated(scale: float, cache: str) -> str:
    """The six tables at TPC-H scale factor ``scale``, generated once into ``cache``."""
    directory = os.path.join(cache, f"tpch-sf{scale:g}")
    if all(os.path.exists(os.path.join(directory, f"{t}.parquet")) for t in TABLES):
        return directory
    exe = shutil.which("tpchgen-cli") or os.path.join(os.path.dirname(sys.executable), "tpchgen-cli")
    if not os.path.exists(exe):
        raise SystemExit("tpchgen-cli is missing: pip install -e '.[bench]' (make bench-layout does)")
    os.makedirs(directory, exist_ok=True)
    subprocess.run([exe, "parquet", "-s", f"{scale:g}", f"--tables={','.join(TABLES)}", f"--output-dir={directory}"],
                   check=True, stdout=subprocess.DEVNULL)
    return directory


def denormalized(spark: Any, scale: float, cache: str, files: int) -> str:
    """The joined table in ``files`` Parquet files of random order (what a full scan reads). Cached."""
    target = os.path.join(cache, f"lineitem-denormalized-sf{scale:g}-{files}")
    if os.path.exists(os.path.join(target, "_SUCCESS")):
        return target
    source = generated(scale, cache)
    t = {name: spark.read.parquet(os.path.join(source, f"{name}.parquet")) for name in TABLES}
    joined = (t["lineitem"].join(t["orders"], t["lineitem"].l_orderkey == t["orders"].o_orderkey)
              .join(t["customer"], t["orders"].o_custkey == t["customer"].c_custkey)
              .join(t["nation"], t["customer"].c_nationkey == t["nation"].n_nationkey)
              .join(t["region"], t["nation"].n_regionkey == t["region"].r_regionkey)
              .join(t["part"], t["lineitem"].l_partkey == t["part"].p_partkey))
    shutil.rmtree(target, ignore_errors=True)
    joined.select(*COLUMNS).repartition(files).write.parquet(target)
    return target
