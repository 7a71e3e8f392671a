"""What the shifting-workload results say beyond their table: per-phase query seconds, deciding per
call, each rewrite's predicted against realized saving, and the cost model's phase lengths.

    python -m benchmarks.layout_spark.shifting_analysis benchmarks/layout_spark/results/shifting-sf1.json [...]

Reads the JSON `shifting.py` writes; needs no Spark. Savings are the upfront tree's (``amoeba``)
seconds per query minus the adaptive method's, over the same queries: positive when the adaptive
table is faster; in a run without the upfront tree, the best static layout's (e.g. ``kd``). A rewrite's predicted saving is the policy's own: its recent saving per query
(``predicted_benefit / horizon_queries``, or ``gain_per_query``) in the priced model's bytes, turned
into seconds at the calibrated read price (``results/calibration.json``: seconds per GB read).

The phase lengths: q_s the best static layout's mean query seconds, q_c the clairvoyant's, R a
whole-table rewrite's seconds. A rewrite pays after R / (q_s - q_c) queries (B). Buying at a
phase's first query is within 1.3x of a clairvoyant with free rebuilds once R + L q_c <= 1.3 q_c L,
L >= R / (0.3 q_c). Rent-or-buy (B queries at q_s, then the rewrite, then q_c) needs
B q_s + R + (L - B) q_c <= 1.3 q_c L, L >= 2R / (0.3 q_c); and 1.25x faster than static,
<= q_s L / 1.25, L >= 2R / (q_s / 1.25 - q_c).

A policy that predicts the horizon (``AutoColumns``: a new pattern is expected to last as long
as the log's patterns have) pays rent-or-buy only in the first phase; in each later one it buys
after the d queries it takes to see the new pattern (the optimize interval), then queries at
q_a (what its layout reaches; q_c at best). Over k phases it pays k L q_a + X with
X = (k + 1) R + (k - 1) d (q_s - q_a), so 1.25x faster than static needs
L >= 1.25 X / (k (q_s - 1.25 q_a)), and 1.3x of the clairvoyant L >= X / (k (1.3 q_c - q_a)).

And what the trigger's timing cost: the same rewrites, each at its phase's best decision point
or dropped, by hindsight (``hindsight.py``).
"""
from __future__ import annotations

import argparse
import json
import math
import os
from dataclasses import dataclass
from typing import Any

from benchmarks.layout_spark import hindsight
from benchmarks.layout_spark.shifting_report import STATIC, markdown

CALIBRATION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "calibration.json")
UPFRONT = "amoeba"


@dataclass(frozen=True)
class PhaseSeconds:
    """One method's mean seconds per query in one phase, and over its second half."""

    method: str
    phase: int
    mean_s: float
    second_half_s: float


@dataclass(frozen=True)
class Rewrite:
    """One rewrite event, its prediction and what the queries after it in its phase realized."""

    query: int  # the rewrite ran after this many queries (1-based)
    method: str
    phase: int
    seconds: float
    rows: int
    row_share: float  # of the table's rows
    decided_s: float
    break_even_queries: float | None
    predicted_saving_s: float | None  # a query, at the calibrated read price
    realized_saving_s: float | None  # a query, over the rest of its phase; None when none is left
    layout: str = "units"  # what was rewritten: bounded units, or a whole-table layout over columns

    @property
    def seconds_per_row(self) -> float:
        return self.seconds / self.rows if self.rows else math.nan

    @property
    def predicted_over_realized(self) -> float | None:
        if self.predicted_saving_s is None or not self.realized_saving_s or self.realized_saving_s <= 0:
            return None
        return self.predicted_saving_s / self.realized_saving_s


@dataclass(frozen=True)
class PhaseLengths:
    """The cost model's phase lengths from a static and a clairvoyant query price and a rewrite's.

    >>> p = PhaseLengths(static_s=0.5, clairvoyant_s=0.2, rewrite_s=30.0)
    >>> round(p.break_even), round(p.at_once_1_3), round(p.rent_or_buy_1_3), round(p.rent_or_buy_1_25)
    (100, 500, 1000, 300)
    >>> round(p.predicted_1_25(detect=50, phases=3)), round(p.predicted_1_3(detect=50, phases=3))
    (250, 833)
    """

    static_s: float
    clairvoyant_s: float
    rewrite_s: float
    adaptive_s: float | None = None  # what the adaptive layout reaches after its rewrite (q_a; q_c if None)

    @property
    def reached_s(self) -> float:
        return self.clairvoyant_s if self.adaptive_s is None else self.adaptive_s

    def _predicted_extra(self, detect: int, phases: int) -> float:
        return (phases + 1) * self.rewrite_s + (phases - 1) * detect * (self.static_s - self.reached_s)

    def predicted_1_25(self, detect: int, phases: int) -> float:
        margin = phases * (self.static_s - 1.25 * self.reached_s)
        return 1.25 * self._predicted_extra(detect, phases) / margin if margin > 0 else math.inf

    def predicted_1_3(self, detect: int, phases: int) -> float:
        margin = phases * (1.3 * self.clairvoyant_s - self.reached_s)
        return self._predicted_extra(detect, phases) / margin if margin > 0 else math.inf

    @property
    def break_even(self) -> float:
        return self.rewrite_s / (self.static_s - self.clairvoyant_s)

    @property
    def at_once_1_3(self) -> float:
        return self.rewrite_s / (0.3 * self.clairvoyant_s)

    @property
    def rent_or_buy_1_3(self) -> float:
        return 2 * self.rewrite_s / (0.3 * self.clairvoyant_s)

    @property
    def rent_or_buy_1_25(self) -> float:
        margin = self.static_s / 1.25 - self.clairvoyant_s
        return 2 * self.rewrite_s / margin if margin > 0 else math.inf


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def phase_seconds(result: dict[str, Any]) -> list[PhaseSeconds]:
    n = result["per_phase"]
    out = []
    for method, run in result["methods"].items():
        seconds = run["per_query_s"]
        for phase in range(len(result["phases"])):
            part = seconds[phase * n:(phase + 1) * n]
            out.append(PhaseSeconds(method, phase, mean(part), mean(part[n // 2:])))
    return out


def deciding_per_call(run: dict[str, Any]) -> float | None:
    return run["plan_s"] / run["optimizations"] if run["optimizations"] else None


def predicted_rate(event: dict[str, Any]) -> float | None:
    """The policy's recent saving per query, in its priced model's units (bytes under SparkCost)."""
    if event.get("gain_per_query") is not None:
        return float(event["gain_per_query"])
    if event.get("predicted_benefit") is not None and event.get("horizon_queries"):
        return event["predicted_benefit"] / event["horizon_queries"]
    return None


def reference_method(result: dict[str, Any]) -> str | None:
    """What a rewrite's saving is measured against: the upfront tree, else the run's best static layout."""
    runs = result["methods"]
    if UPFRONT in runs:
        return UPFRONT
    static = [m for m in STATIC if m in runs]
    return min(static, key=lambda m: mean(runs[m]["per_query_s"])) if static else None


def rewrites(result: dict[str, Any], seconds_per_byte: float) -> list[Rewrite]:
    n = result["per_phase"]
    reference = reference_method(result)
    upfront = None if reference is None else result["methods"][reference]["per_query_s"]
    out = []
    for e in result.get("events", []):
        phase = (e["query"] - 1) // n
        after = range(e["query"], (phase + 1) * n)  # the queries of its phase that ran on the new layout
        realized = None
        if upfront is not None and len(after):
            ours = result["methods"][e["method"]]["per_query_s"]
            realized = mean([upfront[i] - ours[i] for i in after])
        rate = predicted_rate(e)
        out.append(Rewrite(e["query"], e["method"], phase, e["seconds"], e["rows"], e["rows"] / result["rows"],
                           e["decided_s"], e.get("break_even_queries"),
                           None if rate is None else rate * seconds_per_byte, realized,
                           f"{e['builder']} over {', '.join(e.get('columns', []))}" if e.get("builder") else "units"))
    return out


def whole_table_rewrite_s(result: dict[str, Any], events: list[Rewrite]) -> tuple[float, str]:
    """A whole-table rewrite's seconds: the mean of the events that rewrote every row, else the
    rewrites' seconds per row (all of them together) times the table's rows."""
    whole = [e.seconds for e in events if e.rows >= result["rows"]]
    if whole:
        return mean(whole), f"mean of {len(whole)} whole-table rewrites"
    if not events:
        return math.nan, "no rewrites"
    rows = sum(e.rows for e in events)
    return sum(e.seconds for e in events) / rows * result["rows"], f"seconds per row of {len(events)} rewrites x rows"


def phase_lengths(result: dict[str, Any], rewrite_s: float) -> tuple[str, PhaseLengths] | None:
    runs = result["methods"]
    """The best static layout and the phase lengths; q_c is NaN in a run without the clairvoyant."""
    static = [m for m in STATIC if m in runs]
    if not static:
        return None
    per_query = {m: mean(runs[m]["per_query_s"]) for m in static}
    best = min(static, key=per_query.__getitem__)
    clairvoyant = mean(runs["clairvoyant"]["per_query_s"]) if "clairvoyant" in runs else math.nan
    return best, PhaseLengths(per_query[best], clairvoyant, rewrite_s)


def reached_seconds(result: dict[str, Any], method: str) -> float | None:
    """A method's mean query seconds on the layout its last rewrite of each phase made (the
    queries after it, in that phase); None when it never rewrote a whole table."""
    n = result["per_phase"]
    whole = [e for e in result.get("events", []) if e["method"] == method and e["rows"] >= result["rows"]]
    last: dict[int, int] = {}
    for e in whole:
        last[(e["query"] - 1) // n] = e["query"]
    seconds = result["methods"][method]["per_query_s"]
    after = [seconds[i] for phase, q in last.items() for i in range(q, (phase + 1) * n)]
    return mean(after) if after else None


def seconds_per_byte(path: str = CALIBRATION) -> float:
    with open(path) as f:
        return json.load(f)["reads"]["seconds_per_gb"] / 1e9


def report(result: dict[str, Any], per_byte: float, rewrite_at: float | None = None) -> list[str]:
    """The analysis' lines; ``rewrite_at`` (seconds) also reprices every whole-table rewrite at
    that cost (e.g. a quiet machine's, for a run whose rewrites met a loaded one)."""
    runs = result["methods"]
    lines = [f"== {result['name']}: {len(result['phases'])} phases of {result['per_phase']} queries, "
             f"{result['rows']:,} rows; read price {per_byte * 1e9:.3g} s/GB",
             "", "seconds per query, by phase: mean (second half)"]
    by_method: dict[str, list[PhaseSeconds]] = {}
    for p in phase_seconds(result):
        by_method.setdefault(p.method, []).append(p)
    for method, phases in by_method.items():
        lines.append(f"  {method:15s} all {mean(runs[method]['per_query_s']):.3f}   "
                     + "   ".join(f"{p.mean_s:.3f} ({p.second_half_s:.3f})" for p in phases))
    reference = reference_method(result)
    if reference is not None:
        lines.append(f"saving a query against {reference}, by phase: mean (second half)")
        for method in runs:
            if runs[method]["optimizations"]:
                lines.append(f"  {method:15s} " + "   ".join(
                    f"{u.mean_s - p.mean_s:.3f} ({u.second_half_s - p.second_half_s:.3f})"
                    for u, p in zip(by_method[reference], by_method[method])))
    lines += ["", "deciding and rewriting"]
    events = rewrites(result, per_byte)
    for method, run in runs.items():
        per_call = deciding_per_call(run)
        if per_call is None:
            continue
        mine = [e for e in events if e.method == method]
        decided = f"{min(e.decided_s for e in mine):.2f}-{max(e.decided_s for e in mine):.2f} s" if mine else "-"
        lines.append(f"  {method}: {run['optimizations']} calls, {per_call:.2f} s deciding a call on average "
                     f"(rewriting calls: {decided}), deciding {run['plan_s'] / run['total_s']:.1%} of the total; "
                     f"{run['rewrites']} rewrites, {run['rewrite_s']:.1f} s, "
                     f"{mean([e.row_share for e in mine]):.0%} of the rows each on average")
    lines += ["", "rewrites: query, method, seconds, rows (share), us per row, break-even queries, "
                  "saving a query predicted / realized over the rest of its phase (s), predicted / realized, what"]
    for e in events:
        ratio = e.predicted_over_realized
        lines.append(
            f"  {e.query:4d} {e.method:13s} {e.seconds:6.1f} s {e.rows:>10,} ({e.row_share:.0%}) "
            f"{e.seconds_per_row * 1e6:6.2f} "
            f"{'-' if e.break_even_queries is None else f'{e.break_even_queries:.1f}':>6s} "
            f"{'-' if e.predicted_saving_s is None else f'{e.predicted_saving_s:.3f}'} / "
            f"{'-' if e.realized_saving_s is None else f'{e.realized_saving_s:.3f}'} "
            f"{'-' if ratio is None else f'{ratio:.1f}x'}  {e.layout}")
    rewrite_s, how = whole_table_rewrite_s(result, [e for e in events if e.method != "clairvoyant"])
    if rewrite_at is not None:
        lines += ["", f"with every whole-table rewrite at {rewrite_at:.1f} s:"]
        for method, run in runs.items():
            whole = [e for e in events if e.method == method and e.row_share >= 1]
            if whole:
                total = run["total_s"] - sum(e.seconds for e in whole) + rewrite_at * len(whole)
                lines.append(f"  {method}: total {total:.1f} s ({len(whole)} rewrites)")
        rewrite_s, how = rewrite_at, "given"
    chosen = phase_lengths(result, rewrite_s)
    lines += ["", f"whole-table rewrite: {rewrite_s:.1f} s ({how})"]
    if "fullscan" in runs:
        full = mean(runs["fullscan"]["per_query_s"])
        lines.append(f"  = {rewrite_s / full:.0f} full scans ({full:.2f} s a query)")
    if chosen is not None:
        best, p = chosen
        seen = not math.isnan(p.clairvoyant_s)
        lines.append(f"phase lengths: q_s {p.static_s:.3f} s ({best}), "
                     f"q_c {f'{p.clairvoyant_s:.3f} s' if seen else '- (no clairvoyant in this run)'}, R {p.rewrite_s:.1f} s")
        if seen:
            lines += [f"  break-even R/(q_s-q_c): {p.break_even:.0f} queries",
                      f"  1.3x of the clairvoyant, buying at the phase's start: {p.at_once_1_3:.0f} queries a phase",
                      f"  rent-or-buy, 1.3x of the clairvoyant: {p.rent_or_buy_1_3:.0f}; "
                      f"1.25x faster than {best}: {p.rent_or_buy_1_25:.0f} queries a phase"]
        detect, phases = int(result.get("optimize_every", 0)), len(result["phases"])
        for method in runs:
            reached = reached_seconds(result, method)
            if reached is None:
                continue
            q = PhaseLengths(p.static_s, p.clairvoyant_s, p.rewrite_s, reached)
            lines.append(f"  predicted horizon ({method}: q_a {reached:.3f} s after its rewrites, d {detect}): "
                         f"1.25x faster than {best}: {q.predicted_1_25(detect, phases):.0f}"
                         + (f"; 1.3x of the clairvoyant: {q.predicted_1_3(detect, phases):.0f}" if seen else "")
                         + " queries a phase")
    timing = hindsight.report_lines(result, None if chosen is None else chosen[0])
    if timing:
        lines += ["", "the trigger's timing, against hindsight:", *timing]
    # each answer is compared with the first method's (the bench's order puts the full scan first)
    reference = next(iter(runs))
    checked = sum(len(r["per_query_s"]) for m, r in runs.items() if m != reference)
    wrong = sum(r["wrong_answers"] for r in runs.values())
    against = "the full scan's" if reference == "fullscan" else f"{reference}'s"
    lines += ["", f"answers checked against {against}: {checked:,}, wrong: {wrong}"]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="results JSON written by shifting.py")
    parser.add_argument("--calibration", default=CALIBRATION, help="its reads' seconds per GB price a byte")
    parser.add_argument("--table", action="store_true", help="also print the run's Markdown table")
    parser.add_argument("--rewrite-s", type=float, help="reprice each whole-table rewrite at this many seconds")
    args = parser.parse_args()
    per_byte = seconds_per_byte(args.calibration)
    for path in args.results:
        with open(path) as f:
            result = json.load(f)
        if args.table:
            print(markdown(result))
        print("\n".join(report(result, per_byte, args.rewrite_s)), end="\n\n")


if __name__ == "__main__":
    main()
