"""TPC-H lineitem written by tpchgen-cli, as generated and clustered by l_shipdate."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq


def _tpchgen() -> str:
    exe = shutil.which("tpchgen-cli") or os.path.join(os.path.dirname(sys.executable), "tpchgen-cli")
    if not os.path.exists(exe):
        raise SystemExit("tpchgen-cli is missing: pip install tpchgen-cli (make bench installs it)")
    return exe


def _plain_strings(table: pa.Table) -> pa.Table:
    # tpchgen writes string_view columns; plain strings keep every reader happy.
    fields = [pa.field(f.name, pa.string() if pa.types.is_string_view(f.type) else f.type) for f in table.schema]
    return table.cast(pa.schema(fields))


def lineitem(root: str, scale: float = 1.0, files: int = 1000) -> str:
    """lineitem in ``files`` Parquet files, in generation order (by l_orderkey). Cached."""
    target = os.path.join(root, f"lineitem-sf{scale:g}-{files}")
    if os.path.exists(os.path.join(target, "_DONE")):
        return target
    shutil.rmtree(target, ignore_errors=True)
    raw = target + ".raw"
    shutil.rmtree(raw, ignore_errors=True)
    subprocess.run([_tpchgen(), "parquet", "-s", f"{scale:g}", "--tables=lineitem", f"--parts={files}",
                    f"--output-dir={raw}"], check=True, stdout=subprocess.DEVNULL)
    os.makedirs(target)
    for name in sorted(os.listdir(os.path.join(raw, "lineitem"))):
        table = _plain_strings(pq.read_table(os.path.join(raw, "lineitem", name)))
        part = int(name.split(".")[1])
        pq.write_table(table, os.path.join(target, f"part-{part:05d}.parquet"))
    shutil.rmtree(raw)
    open(os.path.join(target, "_DONE"), "w").close()
    return target


def clustered(source: str, column: str, files: int | None = None) -> str:
    """A copy of ``source`` sorted by ``column`` and cut into equal files. Cached."""
    target = f"{source}-by-{column}"
    if os.path.exists(os.path.join(target, "_DONE")):
        return target
    shutil.rmtree(target, ignore_errors=True)
    names = sorted(n for n in os.listdir(source) if n.endswith(".parquet"))
    table = pa.concat_tables(pq.read_table(os.path.join(source, n)) for n in names)
    table = table.take(pc.sort_indices(table, [(column, "ascending")]))
    os.makedirs(target)
    count = files or len(names)
    for i, (start, stop) in enumerate(_bounds(table.num_rows, count)):
        pq.write_table(table.slice(start, stop - start), os.path.join(target, f"part-{i:05d}.parquet"))
    open(os.path.join(target, "_DONE"), "w").close()
    return target


def _bounds(rows: int, parts: int) -> list[tuple[int, int]]:
    edges = np.linspace(0, rows, parts + 1).astype(int)
    return list(zip(edges[:-1], edges[1:]))
