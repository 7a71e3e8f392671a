"""Prices learned from what a table's own queries and rewrites took (``t.calibrate(source="log")``).

A timed calibration (the calibration module's ``measure``) copies a sample of the rows and scans every column
of the copies; at TPC-H SF 10 that measured no price per file at all, where the table's queries
spend most of their seconds opening files (docs/layout-pricing.md, "At SF 10, on the wall
clock"). The table already records what the workload really pays: every logged query's files
and bytes read, the share of the bytes in the columns it read and its duration; every commit's
rows and duration. Fitting those gives the prices of *this* table's queries on *this* cluster,
at the table's own file size and scale, and costs nothing to measure. The same least squares as
the timed calibration (``calibration.fit``), on other observations:

- reads: one per logged query (the most recent ``RECENT_QUERIES``): bytes = read share x bytes
  of the files read (what ``SparkCost`` counts), files = files read, seconds = its duration;
- writes: one per commit that routed rows and recorded its duration: the rewrites when the table
  has any (a creation also reads its source, which may be another format), else creations and
  appends; bytes = rows x the table's bytes per row.

Two things the timed fit never meets are handled here. A table's files are of about one size, so
across its queries bytes and files read rise together and least squares cannot split a second
between them (coefficients of either sign fit as well): when they are that collinear, or the
split comes out negative, the split is taken from ``prior`` (the table's stored price per file, else
the library's) and only the scale, seconds per priced byte, is fitted. And a logged query may
have joined other tables or met a cold JVM: observations the first fit misses by more than
``OUTLIER_MADS`` robust deviations are dropped and the fit repeated.

>>> reads = [Timing("read", 2e6 * f, f, 0.2 + 0.012 * f) for f in (8, 9, 30, 31, 44, 60) * 4]
>>> learned = fit_learned(reads, [Timing("write", 2e9, 180, 210.0)], TablePrices(file_bytes=177_000))
>>> seconds_of = lambda files: learned.query_seconds + learned.read_seconds_per_gb * 2e-3 * files + learned.seconds_per_file * files
>>> round(learned.prices.file_bytes), round(learned.query_seconds, 2), round(seconds_of(30), 2)   # the split is the prior's
(177000, 0.2, 0.56)
>>> round(learned.write_seconds_per_gb), round(learned.prices.job_bytes)
(105, 0)
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from skipstone.errors import SkipstoneError
from skipstone.layout.cost_model import FILE_BYTES, TablePrices
from skipstone.table import manifest
from skipstone.table.calibration import Calibration, Timing, least_squares
from skipstone.table.logged_workload import Record

RECENT_QUERIES = 2000  # the recent past: a cluster's prices change when it does
MIN_QUERIES = 20
OUTLIER_MADS = 5.0
COLLINEAR = 0.98  # the correlation of bytes and files read above which the split is the prior's
WRITE_SPREAD = 1.5  # writes whose bytes differ less than this cannot tell a job's cost from a byte's


def fit_learned(reads: Sequence[Timing], writes: Sequence[Timing], prior: TablePrices) -> Calibration:
    """The prices the logged ``reads`` and committed ``writes`` imply (see the module doc); a
    SkipstoneError saying what is missing when they cannot tell them."""
    if len(reads) < MIN_QUERIES or len({t.files for t in reads}) < 2:
        raise SkipstoneError(f"the workload log holds {len(reads)} queries with a duration, reading "
                             f"{len({t.files for t in reads})} different numbers of files: learning prices needs "
                             f"{MIN_QUERIES} queries that read different numbers of files (run queries on the "
                             "table first, or calibrate by timing copies: t.calibrate())")
    if not writes:
        raise SkipstoneError("the table's history has no commit that wrote rows with a recorded duration, so "
                             "nothing says what a rewrite costs here (calibrate by timing copies: t.calibrate())")
    fixed, per_byte, per_file = _read_prices(reads, prior)
    job, write_per_byte = _write_prices(writes)
    prices = TablePrices(file_bytes=per_file / per_byte, job_bytes=job / write_per_byte,
                         write_multiplier=write_per_byte / per_byte, query_bytes=fixed / per_byte)
    return Calibration(prices, per_byte * 1e9, per_file, write_per_byte * 1e9, job,
                       tuple(reads) + tuple(writes), query_seconds=fixed, source="log")


def _read_prices(reads: Sequence[Timing], prior: TablePrices) -> tuple[float, float, float]:
    """(fixed seconds, seconds a byte, seconds a file) of a query."""
    b = np.array([t.bytes for t in reads], dtype=np.float64)
    f = np.array([t.files for t in reads], dtype=np.float64)
    s = np.array([t.seconds for t in reads], dtype=np.float64)
    collinear = b.std() == 0 or np.corrcoef(b, f)[0, 1] >= COLLINEAR
    if not collinear:
        fixed, per_byte, per_file = _robust([np.ones_like(s), b, f], s)
        if per_file < 0:  # opening a file saves nothing: the best fit with no price per file
            (fixed, per_byte), per_file = _robust([np.ones_like(s), b], s), 0.0
        if per_byte > 0:
            return max(fixed, 0.0), per_byte, per_file
    split = FILE_BYTES if prior.file_bytes is None else float(prior.file_bytes)
    fixed, per_priced_byte = _robust([np.ones_like(s), b + split * f], s)
    if not per_priced_byte > 0:
        raise SkipstoneError(f"the durations of the last {len(reads)} logged queries do not grow with the files and "
                             "bytes they read, so no price can be learned from them (a busy or shared cluster?); "
                             "calibrate by timing copies: t.calibrate()")
    return max(fixed, 0.0), per_priced_byte, per_priced_byte * split


def _write_prices(writes: Sequence[Timing]) -> tuple[float, float]:
    """(a job's seconds, seconds a byte) of a write: fitted when the writes differ enough in
    size, else all of a write's seconds put on its bytes (a larger rewrite then looks dearer,
    never cheaper, than it is)."""
    sizes = [t.bytes for t in writes]
    if len(writes) >= 2 and max(sizes) >= WRITE_SPREAD * min(sizes):
        job, per_byte = _robust([np.ones(len(writes)), np.array(sizes)], np.array([t.seconds for t in writes]))
        if per_byte > 0 and job >= 0:
            return job, per_byte
    return 0.0, sum(t.seconds for t in writes) / sum(sizes)


def _robust(columns: list[np.ndarray], seconds: np.ndarray) -> list[float]:
    """Least squares, once more without the observations the first fit misses by more than
    ``OUTLIER_MADS`` median absolute deviations (when enough remain)."""
    a = np.array(columns, dtype=np.float64).T
    solution = least_squares(a.tolist(), seconds.tolist())
    misses = np.abs(seconds - a @ np.array(solution))
    spread = np.median(np.abs(misses - np.median(misses))) * 1.4826
    kept = misses <= np.median(misses) + OUTLIER_MADS * max(spread, 1e-9)
    if a.shape[1] < kept.sum() < len(seconds):
        solution = least_squares(a[kept].tolist(), seconds[kept].tolist())
    return solution


def reads_of(records: Sequence[Record], recent: int = RECENT_QUERIES) -> list[Timing]:
    """One read per logged query with a duration, of the ``recent`` newest ``records``, oldest first."""
    timed = [r for r in records if r.duration_ms is not None and r.files_read is not None and r.bytes_read is not None]
    return [Timing("read", float(r.bytes_read) * (1.0 if r.read_share is None else r.read_share),  # type: ignore[arg-type]
                   int(r.files_read), float(r.duration_ms) / 1000.0)  # type: ignore[arg-type]
            for r in timed[-recent:]]


def writes_of(commits: Sequence[tuple[int, str, dict[str, Any]]], bytes_per_row: float) -> list[Timing]:
    """One write per commit (version, operation, commit info) that routed rows and recorded its
    duration: the rewrites if there are any, else the creation and appends."""
    timed = [info for _, _, info in commits if info.get("durationMs") is not None]
    rewrites = [(int(info["rowsRewritten"]), info) for info in timed if info.get("rowsRewritten")]
    chosen = rewrites or [(int(info.get("rows") or 0), info) for info in timed]
    return [Timing("write", n * bytes_per_row, int(info.get("filesAdded") or 0), float(info["durationMs"]) / 1000.0)
            for n, info in chosen if n > 0 and bytes_per_row > 0]  # an emptied table tells no byte's price


def learn(records: Sequence[Record], commits: Sequence[tuple[int, str, dict[str, Any]]], base: manifest.TableVersion,
          prior: TablePrices) -> Calibration:
    """The prices ``base``'s logged ``records`` and ``commits`` imply (``fit_learned``)."""
    return fit_learned(reads_of(records), writes_of(commits, base.bytes_per_row), prior)
