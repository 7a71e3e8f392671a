"""t.calibrate() measures what reading and rewriting cost on the machine at hand and stores the
prices with the table (its cost.* settings); optimize then gives them to every policy that was
given none of its own, and a policy given its own keeps them."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pytest

from skipstone.errors import SkipstoneError
from skipstone.layout import (AmoebaAdaptive, AutoColumns, BestOf, BoundedRewrite, KdTree, PawRebuild, SparkCost,
                              TablePrices)
from skipstone.table import calibration, settings
from skipstone.table.calibration import Timing
from skipstone.table.optimize import plan
from tests.table.table_copies import local_path, table_fixtures

PRICES = TablePrices(file_bytes=64_000.0, job_bytes=2e6, write_multiplier=12.5, query_bytes=5e7)


def timings(per_byte: float, per_file: float, write_per_byte: float, job: float, noise: float = 0.0,
            seed: int = 0) -> list[Timing]:
    rng = np.random.default_rng(seed)
    jitter = lambda: float(rng.normal(0, noise))  # noqa: E731
    reads = [Timing("read", b, f, 0.3 + per_byte * b + per_file * f + jitter())
             for b in (2e7, 5e7, 1e8) for f in (1, 8, 32)]
    writes = [Timing("write", b, 4, job + write_per_byte * b + jitter()) for b in (2.5e7, 1e8, 5e7)]
    return reads + writes


def test_the_fit_recovers_the_prices_the_timings_were_made_of():
    fitted = calibration.fit(timings(per_byte=3e-9, per_file=4e-3, write_per_byte=2e-7, job=3.0))
    assert fitted.prices.file_bytes == pytest.approx(4e-3 / 3e-9)
    assert fitted.prices.write_multiplier == pytest.approx(2e-7 / 3e-9)
    assert fitted.prices.job_bytes == pytest.approx(3.0 / 2e-7)
    assert fitted.prices.query_bytes == pytest.approx(0.3 / 3e-9)   # the reads' fixed 0.3 s, in bytes read


def test_the_fit_stands_some_noise():
    fitted = calibration.fit(timings(per_byte=3e-9, per_file=4e-3, write_per_byte=2e-7, job=3.0, noise=0.01))
    assert fitted.prices.file_bytes == pytest.approx(4e-3 / 3e-9, rel=0.2)
    assert fitted.prices.write_multiplier == pytest.approx(2e-7 / 3e-9, rel=0.1)


def test_timings_in_which_bytes_cost_nothing_are_refused():
    with pytest.raises(SkipstoneError, match="could not tell the cost of a byte"):
        calibration.fit(timings(per_byte=0.0, per_file=4e-3, write_per_byte=2e-7, job=3.0))


created, table = table_fixtures(
    "calibrate", lambda spark: spark.range(20_000).selectExpr("id AS a", "id * 7919 % 20000 AS b", "uuid() AS s"),
    KdTree(block_rows=2_500, columns=["a"]))


def test_measuring_times_writes_and_scans_of_copies_and_leaves_no_copy(spark, table):
    before = table.version
    measured = calibration.measure(spark, table.current(), sample_bytes=1e9, repeats=1)
    writes = [t for t in measured if t.kind == "write"]
    reads = [t for t in measured if t.kind == "read"]
    assert sorted(t.files for t in writes) == [4, 4, 64, 64]
    assert len(reads) == 12 and {t.files for t in reads} == {1, 2, 4, 32, 64}
    assert all(t.bytes > 0 and t.seconds > 0 for t in measured)
    assert table.version == before
    staging = os.path.join(local_path(table.root), "_skipstone", "staging")
    assert not os.path.exists(staging) or not any(n.startswith("calibrate") for n in os.listdir(staging))


def test_calibrate_stores_the_prices_as_the_tables_settings(spark, table, monkeypatch):
    monkeypatch.setattr(calibration, "measure", lambda *a: timings(3e-9, 4e-3, 2e-7, 3.0))
    measured = table.calibrate()
    stored = settings.read(spark, table.properties(), table.root)
    assert stored.prices == TablePrices(round(4e-3 / 3e-9, 3), round(3.0 / 2e-7, 3), round(2e-7 / 3e-9, 3),
                                        round(0.3 / 3e-9, 3))
    assert stored.calibrated_at == measured.calibrated_at and measured.calibrated_at.endswith("Z")
    assert table.history().collect()[-1].operation == "SET PROPERTIES"


@dataclass
class RecordsPrices:
    name: str = "RecordsPrices"
    seen: list = field(default_factory=list)

    def with_prices(self, prices):
        self.seen.append(prices)
        return self

    def propose(self, tree, workload, sample):
        return None


def test_optimize_gives_policies_the_tables_prices(spark, table):
    recorder = RecordsPrices()
    plan(spark, table.current(), table.workload(), recorder)
    table.set_properties({"cost.fileBytes": "64000", "cost.jobBytes": "2000000", "cost.writeMultiplier": "12.5",
                          "cost.queryBytes": "5e7"})
    plan(spark, table.current(), table.workload(), BestOf((recorder,)))
    assert recorder.seen == [TablePrices(), PRICES]


@pytest.mark.parametrize("policy", [AmoebaAdaptive(), PawRebuild(), BoundedRewrite(), AutoColumns()],
                         ids=lambda p: p.name)
def test_a_policy_without_prices_of_its_own_takes_the_tables(policy):
    priced = policy.with_prices(PRICES)
    assert priced.write_multiplier == 12.5
    assert (priced.cost_model.file_price, priced.cost_model.job_cost, priced.cost_model.query_cost) == (64_000.0, 2e6, 5e7)


def test_a_policy_given_prices_keeps_them():
    own = BoundedRewrite(write_multiplier=4, cost_model=SparkCost(file_bytes=1000, job_bytes=0)).with_prices(PRICES)
    assert (own.write_multiplier, own.cost_model.file_price, own.cost_model.job_cost) == (4, 1000, 0)
    partly = AmoebaAdaptive(cost_model=SparkCost(file_bytes=1000)).with_prices(PRICES)
    assert (partly.write_multiplier, partly.cost_model.file_price, partly.cost_model.job_cost) == (12.5, 1000, 2e6)


def test_an_uncalibrated_table_prices_as_the_library():
    policy = BoundedRewrite().with_prices(TablePrices())
    assert (policy._c, policy.cost_model.file_price, policy.cost_model.job_cost, policy.cost_model.query_cost) == \
        (10.2, 177_000.0, 11_300_000.0, 16_800_000.0)


def test_a_calibration_that_fails_half_way_changes_nothing_and_leaves_no_copy(spark, table, monkeypatch):
    from tests.table.table_data import as_multiset

    rows, version, properties = as_multiset(spark.read.parquet(table.root)), table.version, table.properties()

    def killed(spark, paths):
        raise RuntimeError("killed while scanning the copies")

    monkeypatch.setattr(calibration, "_scan", killed)
    with pytest.raises(RuntimeError, match="killed"):
        table.calibrate(sample_bytes=1e6, repeats=1)
    assert (table.version, table.properties()) == (version, properties)
    assert as_multiset(spark.read.parquet(table.root)) == rows
    staging = os.path.join(local_path(table.root), "_skipstone", "staging")
    assert not os.path.exists(staging) or not any(n.startswith("calibrate") for n in os.listdir(staging))


def test_the_copy_a_killed_calibration_leaves_is_removed_by_vacuum_and_never_read(spark, table, monkeypatch):
    from tests.table.table_data import as_multiset

    rows = as_multiset(spark.read.parquet(table.root))
    monkeypatch.setattr(calibration, "delete", lambda spark, path: None)  # the process died before its cleanup
    monkeypatch.setattr(calibration, "_scan", lambda spark, paths: (_ for _ in ()).throw(RuntimeError("killed")))
    with pytest.raises(RuntimeError):
        table.calibrate(sample_bytes=1e6, repeats=1)
    staging = os.path.join(local_path(table.root), "_skipstone", "staging")
    assert any(n.startswith("calibrate") for n in os.listdir(staging))
    assert as_multiset(spark.read.parquet(table.root)) == rows  # the copy is not the table's
    table.vacuum(retention_hours=0, force=True)
    assert not any(n.startswith("calibrate") for n in os.listdir(staging))
    assert as_multiset(spark.read.parquet(table.root)) == rows
