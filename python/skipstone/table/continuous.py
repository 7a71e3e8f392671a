"""Continuous optimization: an iteration asks the table's strategies, in their configured order,
for a bounded batch of work and runs the first that selects something; the loop repeats until
nothing is left, a time budget is spent, or it is told to stop. Every iteration commits on its
own (or not at all), so the loop may be interrupted anywhere."""
from __future__ import annotations

import json
import threading
import time
from typing import TYPE_CHECKING, Callable

from skipstone.layout.policies import AmoebaAdaptive, LayoutPolicy
from skipstone.table import manifest, settings
from skipstone.table.compaction import compact
from skipstone.table.optimize import OptimizeResult, apply, plan
from skipstone.table.transaction import operations, python_roles, run

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def run_iteration(spark: SparkSession, base: manifest.TableVersion, workload: DataFrame | None,
                  policy: LayoutPolicy | None) -> OptimizeResult | None:
    """One iteration against ``base``; None when no strategy selects anything. ``workload`` is
    read only if the layout strategy is reached (None: not needed)."""
    config = settings.read(spark, base.properties, base.root)
    for strategy in config.strategies:
        if strategy == "unindexed":
            absorbed = _absorb(spark, base)
            if absorbed is not None:
                return absorbed
        elif strategy == "compaction":
            compacted = compact(spark, base)  # the JVM selects and compacts (one implementation with SQL's OPTIMIZE)
            if compacted is not None:
                return compacted
        elif strategy == "layout" and workload is not None:
            planned = plan(spark, base, workload, policy or AmoebaAdaptive())
            if planned is not None:
                return apply(spark, planned, f"policy {planned.policy}: {planned.change.description}".rstrip(": "))
    return None


def _absorb(spark: SparkSession, base: manifest.TableVersion) -> OptimizeResult | None:
    """Route the rows of other writers' files through the layout into the table's own, indexed
    files, in the JVM (``io.skipstone.table.Absorb``); None when no such file waits."""
    text = run(operations(spark).Absorb.runFromPython, spark._jsparkSession, base.root, int(base.version),
               python_roles(spark, base.root))
    return None if text is None else OptimizeResult.from_json(json.loads(text))


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
