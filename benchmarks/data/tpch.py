"""TPC-H lineitem written by tpchgen-cli, as generated and clustered by l_shipdate (sorted by duckdb)."""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from typing import Any, Iterable, Iterator

import numpy as np
import pyarrow as pa
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
    os.makedirs(target)
    glob = os.path.join(source, "*.parquet")
    with _duckdb(target + ".spill") as db:
        rows = db.sql(f"SELECT count(*) FROM read_parquet('{glob}')").fetchall()[0][0]
        count = files or len([n for n in os.listdir(source) if n.endswith(".parquet")])
        batches = db.sql(f"SELECT * FROM read_parquet('{glob}') ORDER BY {column}").to_arrow_reader(100_000)
        for i, pieces in enumerate(_cut(batches, _bounds(rows, count))):
            table = _plain_strings(pa.Table.from_batches(pieces))
            pq.write_table(table, os.path.join(target, f"part-{i:05d}.parquet"))
    open(os.path.join(target, "_DONE"), "w").close()
    return target


@contextlib.contextmanager
def _duckdb(spill: str) -> Iterator[Any]:
    """duckdb sorts out of core: SF 10 lineitem (60 M rows) does not fit beside a 6 GB Spark driver."""
    import duckdb

    db = duckdb.connect(config={"memory_limit": "3GB", "threads": 2, "temp_directory": spill})
    db.sql("SET enable_progress_bar = false")  # it would draw over the benchmark's log
    try:
        yield db
    finally:
        db.close()
        shutil.rmtree(spill, ignore_errors=True)


def _cut(batches: Iterable[pa.RecordBatch], bounds: list[tuple[int, int]]) -> Iterator[list[pa.RecordBatch]]:
    """The stream's rows regrouped into one list of pieces per (start, stop) of ``bounds``."""
    batches = iter(batches)
    batch, offset = None, 0  # the batch being consumed and the rows of it already handed out
    for start, stop in bounds:
        pieces, wanted = [], stop - start
        while wanted:
            if batch is None or offset == batch.num_rows:
                batch, offset = next(batches), 0
            piece = batch.slice(offset, min(wanted, batch.num_rows - offset))
            pieces.append(piece)
            offset += piece.num_rows
            wanted -= piece.num_rows
        yield pieces


def _bounds(rows: int, parts: int) -> list[tuple[int, int]]:
    edges = np.linspace(0, rows, parts + 1).astype(int)
    return list(zip(edges[:-1], edges[1:]))
