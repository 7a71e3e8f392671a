"""Skipstone.create: sample, build the tree, route and write every row in the executors,
index the new files, commit version 1."""
from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Sequence

import numpy as np

from skipstone.errors import SkipstoneError
from skipstone.indexes import IndexType, MinMax
from skipstone.layout.serialization import layout_to_json
from skipstone.layout.specs import LayoutSpec
from skipstone.layout.layout import Layout
from skipstone.layout.tree import PartitionTree
from skipstone.session import java_call, jvm_entry
from skipstone.table import failpoints, manifest
from skipstone.table.columns import layout_columns, quoted_if_needed
from skipstone.table.container import (delete, has_files_besides_leftovers, new_staging_dir, relative, write_sample,
                                       write_schema_summary)
from skipstone.table.indexing import build_metadata
from skipstone.table.jvm_layout import build_layout
from skipstone.table.sample import draw_sample
from skipstone.table.writer import WrittenFile, write_blocks

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

# A block may exceed its target size (blocks hold [b, 2b) rows); files above this many times the
# target are split.
MAX_BLOCK_FACTOR = 2.0
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
    written: list[WrittenFile] = []
    metadata_version, rows = None, {}
    staging = new_staging_dir(root, "create")
    try:
        if total > 0:
            written = write_blocks(spark, df, tree, types, tree.block_ids.tolist(), staging, root,
                                   math.ceil(MAX_BLOCK_FACTOR * block_rows))
        write_schema_summary(spark, root, df.schema, staging)
    except Exception:
        delete(spark, staging)
        raise
    failpoints.check(spark, "create.afterWrite")
    delete(spark, staging)
    if total > 0:
        requested = list(indexes)
        requested += [MinMax(n) for n in map(quoted_if_needed, types) if MinMax(n) not in requested]
        metadata_version, rows = build_metadata(spark, root, [(w.path, w.size, w.mtime) for w in written], requested)
        failpoints.check(spark, "create.afterMetadata")
    files = [manifest.DataFile(relative(root, w.path), w.size, w.mtime, w.block, rows[w.path]) for w in written]
    tree = with_actual_rows(tree, files)
    properties = {
        "format": "parquet",
        "schema": df.schema.json(),
        "layout.spec": json.dumps(layout.to_json()),
        "layout.blockRows": str(block_rows),
        "layout.sample": write_sample(spark, root, sample),
    }
    info = {"rows": total, "filesAdded": len(files), "blocks": int(tree.block_count), "blockRows": block_rows}
    return manifest.commit(spark, root, 0, "CREATE", files, layout=layout_to_json(tree),
                           metadata_version=metadata_version, properties=properties, commit_info=info)


def with_actual_rows(tree: Layout, files: Sequence[manifest.DataFile]) -> Layout:
    """The layout with each block's rows counted from its files (the builders only estimated them)."""
    counts: dict[int, int] = {}
    for f in files:
        counts[f.block] = counts.get(f.block, 0) + f.rows
    return tree.with_block_rows(np.array([counts.get(int(b), 0) for b in tree.block_ids], dtype=np.float64))


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
