"""t.calibrate(source="log") learns a table's prices from what its own logged queries and
commits took: the fit against hand-made observations (including the collinear files and bytes of
a real table, outliers, and what is refused), then on a real table's log and history."""
from __future__ import annotations

import numpy as np
import pytest

from skipstone.errors import SkipstoneError
from skipstone.layout import KdTree, TablePrices
from skipstone.table import learned_prices, settings
from skipstone.table.calibration import Timing
from skipstone.table.learned_prices import fit_learned
from skipstone.table.logged_workload import table_workload
from skipstone.table.optimize import commit_log, plan, table_prices
from tests.table.table_copies import table_fixtures
from tests.table.test_calibration import RecordsPrices

WRITES = [Timing("write", 2e9, 180, 210.0)]


def queries(fixed: float, per_byte: float, per_file: float, bytes_per_file, files=(3, 8, 9, 30, 31, 44, 60),
            repeat: int = 4, noise: float = 0.0) -> list[Timing]:
    """Queries reading ``files`` files each, of ``bytes_per_file`` (one size, or one per query)."""
    rng = np.random.default_rng(7)
    sizes = np.broadcast_to(np.asarray(bytes_per_file, dtype=float), (len(files) * repeat,))
    return [Timing("read", size * f, f, fixed + per_byte * size * f + per_file * f + float(rng.normal(0, noise)))
            for f, size in zip(list(files) * repeat, sizes)]


def predicted(learned, files: int, bytes_read: float) -> float:
    return learned.query_seconds + learned.read_seconds_per_gb * 1e-9 * bytes_read + learned.seconds_per_file * files


def test_files_of_one_size_take_the_split_from_the_prior_and_fit_the_scale():
    # a real table: every file about 9.3 MB, so bytes and files read rise together
    reads = queries(0.21, 1e-9, 0.0047, 9.3e6 * 0.1)
    learned = fit_learned(reads, WRITES, TablePrices(file_bytes=500_000))
    assert learned.prices.file_bytes == pytest.approx(500_000)
    assert learned.query_seconds == pytest.approx(0.21)
    for files in (5, 50, 200):  # the seconds a query of this table pays are right whatever the split
        assert predicted(learned, files, files * 9.3e5) == pytest.approx(0.21 + files * (9.3e5 * 1e-9 + 0.0047))
    # an uncalibrated table splits as the library does
    assert fit_learned(reads, WRITES, TablePrices()).prices.file_bytes == pytest.approx(177_000)


def test_files_of_different_sizes_fit_all_three_prices():
    sizes = [2e5, 4e6, 1e7, 5e5, 8e6, 3e6, 6e6] * 4
    learned = fit_learned(queries(0.3, 2e-9, 0.004, sizes), WRITES, TablePrices(file_bytes=1.0))
    assert learned.prices.file_bytes == pytest.approx(0.004 / 2e-9)
    assert learned.prices.query_bytes == pytest.approx(0.3 / 2e-9)
    assert learned.read_seconds_per_gb == pytest.approx(2.0)


def test_the_write_multiplier_is_a_rewrites_byte_against_a_query_byte():
    learned = fit_learned(queries(0.2, 1e-9, 0.0, [1e6, 5e6, 2e5, 9e6, 3e6, 7e6, 4e5] * 4), WRITES, TablePrices())
    assert learned.write_seconds_per_gb == pytest.approx(105.0)
    assert learned.prices.job_bytes == 0.0   # one write: all of its seconds on its bytes
    assert learned.prices.write_multiplier == pytest.approx(105.0 / 1.0)


def test_writes_of_different_sizes_fit_a_jobs_cost():
    writes = [Timing("write", b, 10, 4.0 + 1e-7 * b) for b in (2e8, 1e9, 2e9)]
    learned = fit_learned(queries(0.2, 1e-9, 0.0, 9e5), writes, TablePrices())
    assert learned.job_seconds == pytest.approx(4.0)
    assert learned.prices.job_bytes == pytest.approx(4.0 / 1e-7)


def test_a_query_that_joined_another_table_or_met_a_cold_jvm_is_left_out():
    reads = queries(0.2, 1e-9, 0.01, 9e5, noise=0.002)
    reads[3] = Timing("read", reads[3].bytes, reads[3].files, reads[3].seconds + 30.0)
    learned = fit_learned(reads, WRITES, TablePrices(file_bytes=0.0))
    assert learned.query_seconds == pytest.approx(0.2, abs=0.01)
    assert learned.seconds_per_file + learned.read_seconds_per_gb * 1e-9 * 9e5 == pytest.approx(0.0109, rel=0.02)


def test_too_few_queries_no_write_or_durations_that_do_not_grow_are_refused():
    with pytest.raises(SkipstoneError, match="20 queries that read different numbers of files"):
        fit_learned(queries(0.2, 1e-9, 0.01, 9e5, files=(4,), repeat=30), WRITES, TablePrices())
    with pytest.raises(SkipstoneError, match="20 queries"):
        fit_learned(queries(0.2, 1e-9, 0.01, 9e5, repeat=2), WRITES, TablePrices())
    with pytest.raises(SkipstoneError, match="no commit that wrote rows"):
        fit_learned(queries(0.2, 1e-9, 0.01, 9e5), [], TablePrices())
    with pytest.raises(SkipstoneError, match="do not grow with the files and bytes"):
        fit_learned(queries(1.0, -1e-9, -0.01, 9e5), WRITES, TablePrices())


created, table = table_fixtures(
    "learned", lambda spark: spark.range(40_000).selectExpr("id AS a", "id * 7919 % 40000 AS b", "uuid() AS s"),
    KdTree(block_rows=2_500, columns=["a"]))


def test_a_table_learns_its_prices_from_its_log_and_history(spark, table):
    with pytest.raises(SkipstoneError, match="the workload log holds 0 queries"):
        table.calibrate(source="log")
    for k in range(24):  # ranges of a that read from 2 to all 16 files
        spark.read.parquet(table.root).where(f"a < {(k % 8 + 1) * 5_000}").selectExpr("sum(b)").collect()
    base = table.current()
    reads = learned_prices.reads_of(table_workload(spark, table.root, base.tree.schema).records)
    assert len(reads) == 24 and len({r.files for r in reads}) >= 4
    assert all(r.seconds > 0 and r.bytes > 0 for r in reads)
    bytes_per_row = sum(f.size for f in base.files) / sum(f.rows for f in base.files)
    writes = learned_prices.writes_of(commit_log(spark, table.root), bytes_per_row)
    assert len(writes) == 1 and writes[0].seconds > 0   # the creation: the table has no rewrite yet
    assert writes[0].bytes == pytest.approx(sum(f.size for f in base.files))
    learned = table.calibrate(source="log")
    assert learned.source == "log" and learned.calibrated_at.endswith("Z")
    assert len(learned.timings) == 25
    stored = settings.read(spark, table.properties(), table.root)
    assert stored.prices.write_multiplier == pytest.approx(learned.prices.write_multiplier, rel=1e-3)
    assert stored.calibrated_at == learned.calibrated_at
    assert table.history().collect()[-1].operation == "SET PROPERTIES"


def test_with_cost_learn_optimize_prices_with_what_the_log_implies(spark, table):
    table.set_properties({"cost.fileBytes": "64000", "cost.jobBytes": "2000000", "cost.writeMultiplier": "12.5"})
    assert table_prices(spark, table.current()) == TablePrices(64_000.0, 2e6, 12.5, None)
    table.set_properties({"cost.learn": "true"})
    for _ in range(3):  # too little to learn from yet: the settings' prices
        spark.read.parquet(table.root).where("a < 9000").selectExpr("sum(b)").collect()
    assert table_prices(spark, table.current()) == TablePrices(64_000.0, 2e6, 12.5, None)
    for k in range(24):
        spark.read.parquet(table.root).where(f"a < {(k % 8 + 1) * 5_000}").selectExpr("sum(b)").collect()
    learned = table_prices(spark, table.current())
    assert learned == learned_prices.learn(table_workload(spark, table.root, table.current().tree.schema).records,
                                           commit_log(spark, table.root), table.current(),
                                           TablePrices(64_000.0, 2e6, 12.5, None)).prices
    assert learned.write_multiplier != 12.5 and learned.write_multiplier > 0
    recorder = RecordsPrices()
    plan(spark, table.current(), None, recorder)
    assert recorder.seen == [learned]
    assert table.properties()["cost.writeMultiplier"] == "12.5"   # learned for the plan, not stored


def test_an_unknown_source_is_refused(table):
    with pytest.raises(ValueError, match="source must be 'timed'.*or 'log'"):
        table.calibrate(source="history")
