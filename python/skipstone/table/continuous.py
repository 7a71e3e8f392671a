"""Continuous optimization: iterations repeated until nothing is left, a time budget is spent, or
the loop is told to stop. Each iteration is the JVM's one strategy loop
(``io.skipstone.table.OptimizeIteration``) and commits on its own (or not at all), so the loop may
be interrupted anywhere."""
from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from skipstone.table.optimize import OptimizeResult


def run_continuously(iteration: Callable[[], OptimizeResult | None], max_seconds: float | None,
                     max_iterations: int | None, stop: threading.Event | None) -> list[OptimizeResult]:
    """Iterate until an iteration finds nothing, ``max_seconds`` are spent (checked between
    iterations: one that started runs to its commit), ``max_iterations`` ran, or ``stop`` is set."""
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    done: list[OptimizeResult] = []
    while (max_iterations is None or len(done) < max_iterations) and not (stop is not None and stop.is_set()) \
            and (deadline is None or time.monotonic() < deadline):
        result = iteration()
        if result is None:
            break
        done.append(result)
    return done
