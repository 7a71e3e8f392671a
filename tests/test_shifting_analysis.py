"""The shifting-workload analysis (benchmarks/layout_spark/shifting_analysis.py) on a tiny run
whose numbers can be checked by hand: 2 phases of 4 queries, a table of 1,000 rows."""
from __future__ import annotations

import math
from typing import Any

import pytest

from benchmarks.layout_spark.shifting_analysis import (PhaseLengths, deciding_per_call, phase_lengths, phase_seconds,
                                                       report, rewrites, whole_table_rewrite_s)

SECONDS_PER_BYTE = 1e-3  # a priced byte read costs a millisecond


def run(per_query_s: list[float], plan_s: float = 0.0, optimizations: int = 0) -> dict[str, Any]:
    return {"per_query_s": per_query_s, "plan_s": plan_s, "optimizations": optimizations, "rewrites": 0,
            "rewrite_s": 0.0, "total_s": sum(per_query_s) + plan_s, "wrong_answers": 0}


@pytest.fixture
def result() -> dict[str, Any]:
    return {
        "name": "tiny", "rows": 1000, "per_phase": 4, "phases": [["a"], ["b"]],
        "methods": {
            "amoeba": run([1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0]),
            "bounded": run([1.0, 1.0, 0.6, 0.4, 2.0, 1.0, 1.0, 1.0], plan_s=3.0, optimizations=4),
            "clairvoyant": run([0.5] * 8),
        },
        "events": [
            # after query 2: a unit of 250 rows in 5 s; the policy saw 400 bytes a query over 100 queries
            {"query": 2, "method": "bounded", "rows": 250, "seconds": 5.0, "decided_s": 1.0,
             "break_even_queries": 10.0, "predicted_benefit": 40_000.0, "horizon_queries": 100.0},
            # after query 5: the whole table in 20 s, gaining 1,000 bytes a query
            {"query": 5, "method": "bounded", "rows": 1000, "seconds": 20.0, "decided_s": 0.5,
             "break_even_queries": 20.0, "gain_per_query": 1000.0, "builder": "KdTree", "columns": ["b"]},
            # after query 8: nothing of its phase is left to measure it on
            {"query": 8, "method": "bounded", "rows": 500, "seconds": 5.0, "decided_s": 0.5},
        ],
    }


def test_phase_means_and_second_halves(result: dict[str, Any]) -> None:
    bounded = [p for p in phase_seconds(result) if p.method == "bounded"]
    assert [(p.mean_s, p.second_half_s) for p in bounded] == [(0.75, 0.5), (1.25, 1.0)]


def test_deciding_is_plan_seconds_per_call(result: dict[str, Any]) -> None:
    assert deciding_per_call(result["methods"]["bounded"]) == 0.75
    assert deciding_per_call(result["methods"]["amoeba"]) is None


def test_rewrite_predicted_against_realized_saving(result: dict[str, Any]) -> None:
    unit, whole, last = rewrites(result, SECONDS_PER_BYTE)
    # queries 3 and 4 saved 0.4 and 0.6 s against amoeba; the policy predicted 400 bytes = 0.4 s a query
    assert unit.realized_saving_s == pytest.approx(0.5)
    assert unit.predicted_saving_s == pytest.approx(0.4)
    assert unit.predicted_over_realized == pytest.approx(0.8)
    assert unit.seconds_per_row == 0.02 and unit.row_share == 0.25
    # queries 6-8 saved 1 s each; predicted 1,000 bytes = 1 s
    assert whole.realized_saving_s == pytest.approx(1.0) and whole.predicted_over_realized == pytest.approx(1.0)
    assert whole.layout == "KdTree over b"
    assert last.realized_saving_s is None and last.predicted_over_realized is None


def test_whole_table_rewrite_from_a_full_event_else_seconds_per_row(result: dict[str, Any]) -> None:
    events = rewrites(result, SECONDS_PER_BYTE)
    assert whole_table_rewrite_s(result, events)[0] == 20.0
    units = [e for e in events if e.rows < 1000]  # 10 s for 750 rows
    assert whole_table_rewrite_s(result, units)[0] == pytest.approx(1000 * 10 / 750)


def test_phase_lengths_by_hand() -> None:
    p = PhaseLengths(static_s=0.5, clairvoyant_s=0.2, rewrite_s=30.0)
    assert p.break_even == pytest.approx(100)  # 30 / 0.3
    assert p.at_once_1_3 == pytest.approx(500)  # 30 / 0.06
    assert p.rent_or_buy_1_3 == pytest.approx(1000)  # (100 x 0.3 + 30) / 0.06
    # 100 x 0.5 + 30 + (L - 100) x 0.2 <= 0.4 L
    assert p.rent_or_buy_1_25 == pytest.approx(300)


def test_no_phase_length_beats_static_when_the_clairvoyant_is_not_25_percent_faster() -> None:
    assert math.isinf(PhaseLengths(static_s=0.5, clairvoyant_s=0.45, rewrite_s=30.0).rent_or_buy_1_25)


def test_phase_lengths_take_the_best_static_layout(result: dict[str, Any]) -> None:
    best, p = phase_lengths(result, 20.0)
    assert best == "amoeba" and (p.static_s, p.clairvoyant_s) == (1.5, 0.5)
    assert p.break_even == pytest.approx(20.0)


def test_report_names_every_rewrite(result: dict[str, Any]) -> None:
    lines = report(result, SECONDS_PER_BYTE)
    assert sum("bounded " in line and " s " in line for line in lines) == 3


def test_rewrites_repriced_at_a_given_cost(result: dict[str, Any]) -> None:
    """--rewrite-s: each whole-table rewrite at the given seconds, partial ones as they were."""
    bounded = result["methods"]["bounded"]
    bounded["rewrite_s"] = 30.0
    bounded["total_s"] += 30.0  # queries 8 + deciding 3 + rewrites 5 + 20 + 5 = 41
    lines = report(result, SECONDS_PER_BYTE, rewrite_at=8.0)
    assert "  bounded: total 29.0 s (1 rewrites)" in lines  # 41 - 20 + 8
    assert any(line.startswith("phase lengths:") and "R 8.0 s" in line for line in lines)


def test_without_the_upfront_tree_savings_are_against_the_best_static_layout(result: dict[str, Any]) -> None:
    """A run of k-d and the adaptive table alone (`--methods kd,auto`): savings against k-d, and
    without the clairvoyant only the phase length for 1.25x faster than k-d."""
    methods = result["methods"]
    methods["kd"] = methods.pop("amoeba")
    methods["sorted"] = run([3.0] * 8)
    del methods["clairvoyant"]
    unit, whole, _ = rewrites(result, SECONDS_PER_BYTE)
    assert unit.realized_saving_s == pytest.approx(0.5) and whole.realized_saving_s == pytest.approx(1.0)
    best, p = phase_lengths(result, 20.0)
    assert best == "kd" and p.static_s == 1.5 and math.isnan(p.clairvoyant_s)
    lines = report(result, SECONDS_PER_BYTE)
    assert "saving a query against kd, by phase: mean (second half)" in lines
    assert any("q_c - (no clairvoyant in this run)" in line for line in lines)
    horizon = [line for line in lines if "predicted horizon (bounded" in line]
    assert len(horizon) == 1 and "1.25x faster than kd" in horizon[0] and "clairvoyant" not in horizon[0]


def test_hindsight_moves_each_phases_one_whole_rewrite_to_its_best_point_or_drops_it() -> None:
    from benchmarks.layout_spark.hindsight import best_schedule, hindsight_total, report_lines

    result = {"per_phase": 4, "optimize_every": 1, "rows": 10, "phases": [["a"], ["b"]], "events": [
        {"method": "auto", "query": 2, "rows": 10, "seconds": 3.0},   # saves 0.5 s a query, 2 queries left
        {"method": "auto", "query": 7, "rows": 10, "seconds": 3.0}],  # saves 2 s a query, too late
        "methods": {"auto": {"per_query_s": [1, 1, 0.5, 0.5, 3, 3, 3, 1], "total_s": 18.0},
                    "kd": {"per_query_s": [1] * 8, "total_s": 16.0}}}
    phases = best_schedule(result, "auto")
    # phase 0: none 4 s (1 x 4) beats rewriting after query 1 (1 + 3 + 1.5), 2 (as run, 6) or 3
    # phase 1: after query 1: 3 + 3 + 3 x 1 = 9 s against 13 as run (3 x 3 + 3 + 1) and 12 for none
    assert [(p.phase, p.ran_at, p.best_at, p.ran_s, p.best_s) for p in phases] == \
        [(0, 2, None, 6.0, 4.0), (1, 3, 1, 13.0, 9.0)]
    assert hindsight_total(result, "auto") == 18.0 - 2.0 - 4.0
    assert "12.0 s = 1.33x kd (ran 18.0 s); phase 0: 2 -> none; phase 1: 3 -> 1" in report_lines(result, "kd")[0]
    # a unit rewrite (not every row) or two rewrites in a phase: kept as run
    result["events"][0]["rows"] = 5
    result["events"].append({"method": "auto", "query": 8, "rows": 10, "seconds": 1.0})
    assert best_schedule(result, "auto") == []
