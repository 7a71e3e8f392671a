"""Continuous optimization: an iteration asks the table's strategies, in their configured order,
for a bounded batch of work and runs the first that selects something; the loop repeats until
nothing is left, a time budget is spent, or it is told to stop. Every iteration commits on its
own (or not at all), so the loop may be interrupted anywhere."""
from __future__ import annotations

import json
import threading
import time
from typing import TYPE_CHECKING, Callable

from skipstone.errors import SkipstoneError
from skipstone.layout.policies import AmoebaAdaptive, LayoutPolicy
from skipstone.table import manifest, settings
from skipstone.table.append import route_and_commit
from skipstone.table.compaction import compact
from skipstone.table.container import relative
from skipstone.table.optimize import OptimizeResult, apply, plan
from skipstone.table.strategies import UnindexedSelection, select_unindexed

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType


def run_iteration(spark: SparkSession, base: manifest.TableVersion, workload: DataFrame | None,
                  policy: LayoutPolicy | None) -> OptimizeResult | None:
    """One iteration against ``base``; None when no strategy selects anything. ``workload`` is
    read only if the layout strategy is reached (None: not needed)."""
    config = settings.read(spark, base.properties, base.root)
    for strategy in config.strategies:
        if strategy == "unindexed":
            unindexed = select_unindexed(spark, base)
            if unindexed is not None:
                return _absorb(spark, base, unindexed)
        elif strategy == "compaction":
            compacted = compact(spark, base)  # the JVM selects and compacts (one implementation with SQL's OPTIMIZE)
            if compacted is not None:
                return compacted
        elif strategy == "layout" and workload is not None:
            planned = plan(spark, base, workload, policy or AmoebaAdaptive())
            if planned is not None:
                return apply(spark, planned, f"policy {planned.policy}: {planned.change.description}".rstrip(": "))
    return None


def _schema(base: manifest.TableVersion) -> StructType:
    from pyspark.sql.types import StructType

    return StructType.fromJson(json.loads(base.properties["schema"]))


def _absorb(spark: SparkSession, base: manifest.TableVersion, selected: UnindexedSelection) -> OptimizeResult:
    """Route the rows of other writers' files through the layout into the table's own, indexed
    files; the version records the files as absorbed, so no reader reads their rows twice."""
    names = tuple(relative(base.root, p) for p in selected.paths)
    rows = spark.read.schema(_schema(base)).parquet(*selected.paths)
    info = {"strategy": "unindexed", "reason": selected.reason, "selected": list(names), "bytesRead": selected.bytes}
    # absorbed by content identity, not name: a file its writer replaces later is new table data
    absorbed = selected.absorbed or names
    try:
        version, count, files = route_and_commit(spark, base, rows, "OPTIMIZE", "optimize.unindexed", info, absorbed)
    except SkipstoneError as e:
        if "was not committed" in str(e):
            raise
        raise SkipstoneError(f"optimize of {base.root} could not absorb the files other writers dropped into its root "
                             f"({', '.join(names)}): {e}. Move the files out of the root (or fix them), or leave them "
                             "unindexed with the property optimize.strategies = 'compaction,layout'") from None
    return OptimizeResult(version, 0.0, float(count), count, files, 0, "unindexed", selected.reason, selected.bytes)


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
