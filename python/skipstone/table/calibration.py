"""What reading and rewriting cost on the machine a table lives on, measured and stored with the
table (``t.calibrate()``): the prices of ``SparkCost`` and the policies' write multiplier.

The library's defaults were calibrated once, on 2 local cores (docs/layout-policies.md, "Cost models");
a cluster on object storage opens files and writes bytes at other prices. Calibrating copies a
sample of the table's rows into a scratch directory of its container, in few and in many files
and at two sizes (each write timed: read, shuffle, write Parquet), then scans subsets of those
copies reading every column (timed). Least squares fit

- reads: seconds = fixed + per_byte x bytes + per_file x files, so ``file_bytes`` = per_file /
  per_byte and ``query_bytes`` = fixed / per_byte (a query's planning and job);
- writes: seconds = fixed + per_byte x bytes, so ``write_multiplier`` = write per_byte / read
  per_byte and ``job_bytes`` = write fixed / write per_byte,

as ``benchmarks/layout_spark/calibrate_file_cost.py`` does for the library's defaults. A write of
a copy does not index or commit, so the job cost is a floor of a real rewrite's.

>>> reads = [Timing("read", b, f, 0.2 + 3e-9 * b + 4e-3 * f) for b, f in [(1e8, 2), (1e8, 16), (2.5e7, 2), (2.5e7, 16)]]
>>> writes = [Timing("write", b, 2, 3.0 + 2e-7 * b) for b in (2.5e7, 1e8)]
>>> fitted = fit(reads + writes)
>>> round(fitted.prices.file_bytes), round(fitted.prices.write_multiplier, 1), round(fitted.prices.job_bytes)
(1333333, 66.7, 15000000)
>>> round(fitted.prices.query_bytes), round(fitted.query_seconds, 2)
(66666667, 0.2)
"""
from __future__ import annotations

import datetime
import time
import uuid
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Sequence

import numpy as np

from skipstone.errors import SkipstoneError
from skipstone.layout.cost_model import TablePrices
from skipstone.table import manifest
from skipstone.table.container import delete

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# the copies: (share of the sampled bytes, files); few and many files of the same rows let the
# fit tell opening a file from reading bytes (64 files: enough that opening them shows above the
# noise of a loaded machine), two sizes tell a write's fixed cost from its bytes
COPIES = ((1.0, 4), (1.0, 64), (0.25, 4), (0.25, 64))


@dataclass(frozen=True)
class Timing:
    """One timed operation: ``kind`` ``read`` (a scan of ``files`` files) or ``write`` (a copy
    written as ``files`` files), ``bytes`` of Parquet read or written, in ``seconds``."""

    kind: str
    bytes: float
    files: int
    seconds: float


@dataclass(frozen=True)
class Calibration:
    """What ``t.calibrate()`` measured and stored: the prices, the fits they come from, the timings
    (timed copies, or the table's logged queries and commits: ``source``)."""

    prices: TablePrices
    read_seconds_per_gb: float
    seconds_per_file: float
    write_seconds_per_gb: float
    job_seconds: float
    timings: tuple[Timing, ...]
    calibrated_at: str = ""
    query_seconds: float = 0.0
    source: str = "timed"  # "timed": copies written and scanned (``measure``); "log": learned (learned_prices)

    def properties(self) -> dict[str, str]:
        """The table settings that store it (``cost.*``)."""
        p = self.prices
        return {"cost.fileBytes": _decimal(p.file_bytes), "cost.jobBytes": _decimal(p.job_bytes),
                "cost.writeMultiplier": _decimal(p.write_multiplier), "cost.queryBytes": _decimal(p.query_bytes),
                "cost.calibratedAt": self.calibrated_at}


def _decimal(value: float | None) -> str:
    return "" if value is None else repr(round(float(value), 3))


def fit(timings: Sequence[Timing]) -> Calibration:
    """The prices the timings imply (least squares; see the module doc). A SkipstoneError when
    the timings cannot tell the costs apart (bytes that cost nothing measurable)."""
    reads = [t for t in timings if t.kind == "read"]
    writes = [t for t in timings if t.kind == "write"]
    if len(reads) < 3 or len(writes) < 2:
        raise SkipstoneError(f"calibration needs 3 timed reads and 2 timed writes, got {len(reads)} and {len(writes)}")
    fixed, per_byte, per_file = least_squares([[1.0, t.bytes, t.files] for t in reads], [t.seconds for t in reads])
    job, write_per_byte = least_squares([[1.0, t.bytes] for t in writes], [t.seconds for t in writes])
    if not (_measurable(per_byte, reads) and _measurable(write_per_byte, writes)):
        raise SkipstoneError("calibration could not tell the cost of a byte from the noise (a byte read costs "
                             f"{per_byte:.3g} s, a byte written {write_per_byte:.3g} s): calibrate on more bytes "
                             "(sample_bytes) or on a quieter machine")
    # noise can make a small cost negative; it is no saving
    per_file, job, fixed = max(per_file, 0.0), max(job, 0.0), max(fixed, 0.0)
    prices = TablePrices(file_bytes=per_file / per_byte, job_bytes=job / write_per_byte,
                         write_multiplier=write_per_byte / per_byte, query_bytes=fixed / per_byte)
    return Calibration(prices, per_byte * 1e9, per_file, write_per_byte * 1e9, job, tuple(timings), query_seconds=fixed)


def _measurable(per_byte: float, timings: Sequence[Timing]) -> bool:
    """Whether bytes explain at least 1 % of the longest of ``timings``: below that, a price per
    byte is noise, and dividing by it would make files and jobs look infinitely dear."""
    return per_byte * max(t.bytes for t in timings) >= 0.01 * max(t.seconds for t in timings)


def least_squares(rows: list[list[float]], seconds: list[float]) -> list[float]:
    """The coefficients that fit ``seconds`` best from ``rows`` (one list of observables each), in
    the observables' own units."""
    a, y = np.array(rows, dtype=np.float64), np.array(seconds, dtype=np.float64)
    scale = np.maximum(np.abs(a).max(axis=0), 1e-300)  # bytes and files differ by orders of magnitude
    solution, *_ = np.linalg.lstsq(a / scale, y, rcond=None)
    return [float(v) for v in solution / scale]


def measure(spark: SparkSession, base: manifest.TableVersion, sample_bytes: float, repeats: int) -> list[Timing]:
    """Times writing copies of a sample of ``base``'s rows (about ``sample_bytes`` of its files)
    into a scratch directory of the table's container and scanning them; the directory is
    removed after (a vacuum removes one a killed calibration left: it is a staging directory)."""
    if not base.files:
        raise SkipstoneError(f"{base.root}: an empty table cannot be calibrated (no rows to time reading)")
    total = sum(f.size for f in base.files)
    share = min(1.0, float(sample_bytes) / max(1, total))
    rows = spark.read.parquet(*[base.absolute(f) for f in base.files])
    scratch = f"{base.root}/_skipstone/staging/calibrate-{int(time.time() * 1000)}-{uuid.uuid4().hex[:8]}"
    timings: list[Timing] = []
    try:
        # warm-up: the first write of a session pays for compiling its code paths
        rows.sample(fraction=min(1.0, share / 4), seed=len(COPIES)).repartition(COPIES[0][1]).write.parquet(f"{scratch}/warm-up")
        copies = []
        for k, (part, files) in enumerate(COPIES):
            path = f"{scratch}/copy-{k}"
            chosen = rows.sample(fraction=share * part, seed=k) if share * part < 1.0 else rows
            began = time.perf_counter()
            chosen.repartition(files).write.parquet(path)  # read, shuffle, write: a rewrite's job without its commit
            seconds = time.perf_counter() - began
            written = _parquet_files(spark, path)
            timings.append(Timing("write", float(sum(s for _, s in written)), len(written), seconds))
            copies.append(written)
        _scan(spark, [p for p, _ in copies[0]])  # warm-up: the first scan pays for loading classes
        scans = [chosen for written in copies for chosen in (written[:1], written[: max(1, len(written) // 2)], written)]
        fastest = [float("inf")] * len(scans)
        for _ in range(repeats):  # the fastest of the repeats: other jobs on the machine only ever slow a scan
            for k, chosen in enumerate(scans):
                began = time.perf_counter()
                _scan(spark, [p for p, _ in chosen])
                fastest[k] = min(fastest[k], time.perf_counter() - began)
        timings += [Timing("read", float(sum(s for _, s in chosen)), len(chosen), seconds)
                    for chosen, seconds in zip(scans, fastest)]
    finally:
        delete(spark, scratch)
    return timings


def calibrate(spark: SparkSession, base: manifest.TableVersion, sample_bytes: float = 256e6,
              repeats: int = 2) -> Calibration:
    """Measure (``measure``) and fit (``fit``) the prices of ``base``'s machine, stamped with now (UTC)."""
    return replace(fit(measure(spark, base, sample_bytes, repeats)), calibrated_at=now_utc())


def now_utc() -> str:
    """Now, to the second, as ``cost.calibratedAt`` stores it (``2026-11-26T09:30:00Z``)."""
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    return now.isoformat().replace("+00:00", "Z")


def _scan(spark: SparkSession, paths: list[str]) -> None:
    """Reads every column of every row of ``paths``, as a query that cannot skip reads them."""
    spark.read.parquet(*paths).selectExpr("sum(hash(*))").collect()  # hash(*) decodes every column


def _parquet_files(spark: SparkSession, directory: str) -> list[tuple[str, int]]:
    """The Parquet files in ``directory`` (path, size), by name."""
    jvm = spark._jvm  # type: ignore[union-attr]
    path = jvm.org.apache.hadoop.fs.Path(directory)
    fs = path.getFileSystem(spark._jsparkSession.sessionState().newHadoopConf())
    found = [(str(s.getPath().toString()), int(s.getLen())) for s in fs.listStatus(path)
             if s.getPath().getName().endswith(".parquet")]
    return sorted(found)
