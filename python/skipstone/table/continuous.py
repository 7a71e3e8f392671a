"""Continuous optimization: an iteration asks the table's strategies, in their configured order,
for a bounded batch of work and runs the first that selects something; the loop repeats until
nothing is left, a time budget is spent, or it is told to stop. Every iteration commits on its
own (or not at all), so the loop may be interrupted anywhere."""
from __future__ import annotations

import json
import math
import threading
import time
from typing import TYPE_CHECKING, Callable

from skipstone.errors import SkipstoneError
from skipstone.layout.policies import AmoebaAdaptive, LayoutPolicy
from skipstone.table import failpoints, manifest
from skipstone.table.append import route_and_commit
from skipstone.table.container import delete, new_staging_dir, relative
from skipstone.table.create import MAX_BLOCK_FACTOR
from skipstone.table.indexing import replace_metadata
from skipstone.table.maintenance_config import MaintenanceConfig
from skipstone.table.optimize import OptimizeResult, apply, plan
from skipstone.table.strategies import CompactionSelection, UnindexedSelection, select_compaction, select_unindexed
from skipstone.table.writer import WrittenFile, write_blocks

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType


def run_iteration(spark: SparkSession, base: manifest.TableVersion, workload: DataFrame | None,
                  policy: LayoutPolicy | None) -> OptimizeResult | None:
    """One iteration against ``base``; None when no strategy selects anything. ``workload`` is
    read only if the layout strategy is reached (None: not needed)."""
    config = MaintenanceConfig.of(base.properties, base.root)
    for strategy in config.strategies:
        if strategy == "unindexed":
            unindexed = select_unindexed(spark, base, config)
            if unindexed is not None:
                return _absorb(spark, base, unindexed)
        elif strategy == "compaction":
            fragmented = select_compaction(base, config)
            if fragmented is not None:
                return _compact(spark, base, fragmented)
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
    version, count, files = route_and_commit(spark, base, rows, "OPTIMIZE", "optimize.unindexed", info, names)
    return OptimizeResult(version, 0.0, float(count), count, files, 0, "unindexed", selected.reason, selected.bytes)


def _compact(spark: SparkSession, base: manifest.TableVersion, selected: CompactionSelection) -> OptimizeResult:
    """Rewrite each selected block's files into as few files as its rows need. The layout does
    not change, so this commutes with appends and with layout changes to other blocks."""
    started = time.monotonic()
    root, schema = base.root, _schema(base)
    tree = base.tree
    types = {c.name: schema[c.name].dataType for c in tree.schema.columns}
    staging = new_staging_dir(root, "compaction")
    written: list[WrittenFile] = []
    try:
        rows = spark.read.schema(schema).parquet(*[base.absolute(f) for f in selected.files])
        written = write_blocks(spark, rows, tree, types, list(selected.blocks), staging, root,
                               math.ceil(MAX_BLOCK_FACTOR * float(base.properties["layout.blockRows"])))
        failpoints.check(spark, "optimize.compaction.afterWrite")
        removed = {f.path for f in selected.files}
        live = [(base.absolute(f), f.size, f.modification_time) for f in base.files if f.path not in removed]
        new = [(w.path, w.size, w.mtime) for w in written]
        metadata_version, counts = replace_metadata(spark, root, live + new, new, schema)
        failpoints.check(spark, "optimize.compaction.afterMetadata")
        added = [manifest.DataFile(relative(root, w.path), w.size, w.mtime, w.block, counts[w.path]) for w in written]
        rewritten = sum(f.rows for f in selected.files)
        if sum(f.rows for f in added) != rewritten:
            raise SkipstoneError(f"compaction of {root} wrote {sum(f.rows for f in added)} rows for {rewritten}; "
                                 "nothing was committed")
        info = {"strategy": "compaction", "reason": selected.reason, "selected": sorted(removed),
                "bytesRead": selected.bytes, "rowsRewritten": rewritten, "filesAdded": len(added),
                "filesRemoved": len(removed), "blocksRewritten": list(selected.blocks),
                "durationMs": round(1000 * (time.monotonic() - started), 1)}
        committed = manifest.commit(spark, root, base.version, "OPTIMIZE", added, sorted(removed),
                                    metadata_version=metadata_version, commit_info=info)
    except Exception:  # not a SimulatedCrash: a killed process cleans nothing up either
        for w in written:
            delete(spark, w.path)
        delete(spark, staging)
        raise
    failpoints.check(spark, "optimize.compaction.afterCommit")
    delete(spark, staging)
    return OptimizeResult(committed.version, 0.0, float(rewritten), rewritten, len(added), len(removed),
                          "compaction", selected.reason, selected.bytes)


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
