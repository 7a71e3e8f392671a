"""The best any trigger could have done with the rewrites a run made: in each phase with one
whole-table rewrite, that rewrite moved to the decision point that would have cost least, or
dropped (hindsight, estimated from the run's own seconds).

A phase's queries before its rewrite ran on the old layout, those after on the new one; their
means (q_old, q_new) price a query on either, and the rewrite costs what it took (R). Moving the
rewrite to after query k of the phase (a multiple of the optimize interval) costs
k q_old + R + (L - k) q_new; dropping it L q_old. At the run's own point this is exactly what the
run paid, so the difference is what the trigger's timing cost, with the layouts and rewrites as
they were. A phase with no rewrite, or with several, is kept as it ran.

>>> result = {"per_phase": 4, "optimize_every": 1, "rows": 10, "phases": [["a"], ["b"]], "events": [
...     {"method": "auto", "query": 2, "rows": 10, "seconds": 3.0},   # phase 0: saves 0.5 s a query for 2 queries
...     {"method": "auto", "query": 5, "rows": 10, "seconds": 3.0}],  # phase 1: saves 2 s a query for 3 queries
...     "methods": {"auto": {"per_query_s": [1, 1, 0.5, 0.5, 3, 1, 1, 1], "total_s": 15.0}}}
>>> [(p.phase, p.ran_at, p.best_at, p.ran_s, p.best_s) for p in best_schedule(result, "auto")]
[(0, 2, None, 6.0, 4.0), (1, 1, 1, 9.0, 9.0)]
>>> hindsight_total(result, "auto")
13.0
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PhaseSchedule:
    """One phase: its rewrite's query (within the phase) as run and at best (None: no rewrite), and
    the phase's seconds (queries and the rewrite) both ways."""

    phase: int
    ran_at: int
    best_at: int | None
    ran_s: float
    best_s: float


def best_schedule(result: dict[str, Any], method: str) -> list[PhaseSchedule]:
    """The phases of ``method`` with one whole-table rewrite, each with its best point (see the module doc)."""
    n, every = int(result["per_phase"]), max(1, int(result.get("optimize_every") or 1))
    seconds = result["methods"][method]["per_query_s"]
    by_phase: dict[int, list[dict[str, Any]]] = {}
    for e in result.get("events", []):
        if e["method"] == method:
            by_phase.setdefault((e["query"] - 1) // n, []).append(e)
    out = []
    for phase, events in sorted(by_phase.items()):
        if len(events) != 1 or events[0]["rows"] < result["rows"]:
            continue
        start, ran = phase * n, events[0]["query"] - phase * n
        before, after = seconds[start:start + ran], seconds[start + ran:start + n]
        if not before or not after:
            continue
        q_old, q_new, rewrite = sum(before) / len(before), sum(after) / len(after), float(events[0]["seconds"])

        def cost(k: int | None) -> float:
            return n * q_old if k is None else k * q_old + rewrite + (n - k) * q_new

        candidates: list[int | None] = [None, *range(every, n, every)]
        best = min(candidates, key=cost)
        out.append(PhaseSchedule(phase, ran, best, cost(ran), cost(best)))
    return out


def hindsight_total(result: dict[str, Any], method: str) -> float:
    """``method``'s total had each of its phases' rewrite run at its best point."""
    return float(result["methods"][method]["total_s"]) - sum(p.ran_s - p.best_s for p in best_schedule(result, method))


def report_lines(result: dict[str, Any], best_static: str | None) -> list[str]:
    """What the report prints: per adaptive method with whole-table rewrites, the hindsight total and schedule."""
    lines = []
    for method, run in result["methods"].items():
        phases = best_schedule(result, method)
        if not phases:
            continue
        total = hindsight_total(result, method)
        against = "" if best_static is None else \
            f" = {float(result['methods'][best_static]['total_s']) / total:.2f}x {best_static}"
        lines.append(f"  {method}: the same rewrites, each at its phase's best decision point (hindsight, "
                     f"estimated): {total:.1f} s{against} (ran {float(run['total_s']):.1f} s); "
                     + "; ".join(f"phase {p.phase}: {p.ran_at} -> {'none' if p.best_at is None else p.best_at}"
                                 for p in phases))
    return lines
