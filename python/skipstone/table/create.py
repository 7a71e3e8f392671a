"""Skipstone.create: the sample drawn and the layout built here; the JVM (``io.skipstone.table.Create``)
routes and writes every row in the executors, indexes the new files and commits version 1."""
from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Sequence

from skipstone.dataset import Skipstone
from skipstone.errors import SkipstoneError
from skipstone.indexes import IndexType, MinMax
from skipstone.layout.serialization import layout_to_json
from skipstone.layout.specs import LayoutSpec
from skipstone.layout.layout import Layout
from skipstone.layout.tree import PartitionTree
from skipstone.session import java_call, jvm_entry
from skipstone.table import manifest
from skipstone.table.columns import layout_columns, quoted_if_needed
from skipstone.table.container import delete, has_files_besides_leftovers, write_sample
from skipstone.table.jvm_layout import build_layout
from skipstone.table.sample import draw_sample
from skipstone.table.transaction import operations, roles_for, run

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

DEFAULT_BYTES_PER_ROW = 100.0


def create_table(spark: SparkSession, path: str, df: DataFrame, layout: LayoutSpec,
                 indexes: Sequence[IndexType] = (), sample_rows: int | None = None) -> manifest.TableVersion:
    root = java_call(jvm_entry(spark).qualify, spark._jsparkSession, path)
    if manifest.latest(spark, root) is not None:
        raise SkipstoneError(f"{root} is already a Skipstone table; open it with Skipstone.for_path")
    if has_files_besides_leftovers(spark, root):
        raise SkipstoneError(f"{root} exists and is not empty; create a table in a new directory")
    if not isinstance(layout, LayoutSpec):
        raise SkipstoneError(f"layout must be a layout spec such as Amoeba(block_bytes=...), got {layout!r}")
    if layout.columns is not None:
        layout_columns(spark, df.schema, tuple(layout.columns), root)  # names and types the builder cuts on
    # The tree's schema holds every orderable column, not only those the upfront tree cuts on:
    # the adaptive optimizer may cut on any column the workload filters.
    types = layout_columns(spark, df.schema, None, root)
    total = df.count()
    block_rows = float(layout.block_rows or max(1.0, layout.block_bytes / _bytes_per_row(df, total)))  # type: ignore[operator]
    blocks_wanted = max(1, math.ceil(total / block_rows))
    wanted_sample = sample_rows or max(10_000, 200 * blocks_wanted)
    sample = draw_sample(df, list(types), total, min(total, wanted_sample))
    if total == 0 or sample.rows == 0:
        from skipstone.layout.tree import Leaf

        tree: Layout = PartitionTree(sample.schema, Leaf(0, 0.0))
    else:
        tree = build_layout(spark, layout, sample, block_rows, float(total))
    requested = list(indexes)
    requested += [MinMax(n) for n in map(quoted_if_needed, types) if MinMax(n) not in requested]
    properties = {
        "format": "parquet",
        "schema": df.schema.json(),
        "layout.spec": json.dumps(layout.to_json()),
        "layout.blockRows": str(block_rows),
        "layout.sample": write_sample(spark, root, sample),
    }
    # a table of no rows has no file to index: it has no skipping metadata
    requests = Skipstone(spark, root, "parquet")._requests(requested) if total > 0 else []
    try:
        text = run(operations(spark).Create.runFromPython, spark._jsparkSession, root, df._jdf,
                   json.dumps(layout_to_json(tree), allow_nan=False), json.dumps(properties), json.dumps(requests),
                   roles_for(spark, root, requested, requests) if requests else None)
    except SkipstoneError:
        delete(spark, f"{root}/{properties['layout.sample']}")  # a killed create (SimulatedCrash) leaves it, as a kill would
        raise
    return manifest.TableVersion.from_json(root, text)


def _bytes_per_row(df: DataFrame, total: int) -> float:
    """Spark's size estimate of the input over its rows: the files' size for a file source (close
    to what Parquet will write), a row-width estimate for in-memory data (larger: blocks come out
    smaller than asked). Give block_rows to the layout spec to be exact."""
    if total <= 0:
        return DEFAULT_BYTES_PER_ROW
    try:
        size = int(df._jdf.queryExecution().optimizedPlan().stats().sizeInBytes().toLong())
    except Exception:  # noqa: BLE001 - an estimate only; any failure falls back to the default
        return DEFAULT_BYTES_PER_ROW
    return max(1.0, size / total) if size > 0 else DEFAULT_BYTES_PER_ROW
