"""The simulator command: runs every method and writes the promised measures."""

from __future__ import annotations

import json

import pytest

from benchmarks.layout_sim import simulate
from benchmarks.layout_sim.methods import METHODS

MEASURES = {"scan_ratio", "lower_bound_ratio", "block_bound_ratio", "blocks_touched", "rows_rewritten", "total_cost",
            "speedup_over_fullscan", "per_query_cost", "build_seconds", "blocks", "repartitions"}


@pytest.fixture(scope="module")
def result(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("sim") / "result.json"
    simulate.main(["--data", "weblog", "--rows", "4000", "--workload", "iot", "--queries", "24", "--history", "12",
                   "--methods", ",".join(sorted(METHODS)), "--block-rows", "200", "--sample-rows", "4000",
                   "--optimizer-sample", "2000", "--window", "10", "--seed", "7", "--out", str(out)])
    return json.loads(out.read_text())


def test_every_method_reports_every_measure(result):
    assert set(result["methods"]) == set(METHODS)
    for measures in result["methods"].values():
        assert MEASURES <= set(measures)
        assert len(measures["per_query_cost"]) == 24


def test_full_scan_reads_the_whole_table_once_per_query(result):
    full = result["methods"]["fullscan"]
    assert (full["scan_ratio"], full["blocks_touched"], full["speedup_over_fullscan"]) == (1.0, 1.0, 1.0)
    assert full["total_cost"] == 24 * result["table_rows"]


def test_no_method_reads_fewer_rows_than_match(result):
    assert all(m["lower_bound_ratio"] >= 1.0 for m in result["methods"].values())


def test_only_the_adaptive_method_rewrites_rows(result):
    rewritten = {name: m["rows_rewritten"] for name, m in result["methods"].items() if m["rows_rewritten"] > 0}
    assert set(rewritten) <= {"adaptive"}


def test_total_cost_counts_rewrites_at_the_write_multiplier(result):
    adaptive = result["methods"]["adaptive"]
    reads = adaptive["scan_ratio"] * result["table_rows"] * 24
    assert adaptive["total_cost"] == pytest.approx(reads + 4.0 * adaptive["rows_rewritten"])


def test_unknown_method_is_named(tmp_path):
    with pytest.raises(ValueError, match="'magic'"):
        simulate.main(["--rows", "1000", "--queries", "2", "--methods", "magic", "--out", str(tmp_path / "x.json")])
