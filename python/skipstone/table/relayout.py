"""``OPTIMIZE t LAYOUT <name> [BY (columns)]``: the whole table rewritten under a new layout.

The spec is built on the table's stored sample with the table's target block size (as
``Skipstone.create`` builds it), every row is routed through it in the executors, and the new
files, their skipping metadata and the new layout are committed in one version that replaces
every file; readers keep the version they resolved. ``PAW`` and ``QDTREE`` are built from the
table's logged workload (its last ``WORKLOAD_WINDOW`` readable queries).

Failpoints (docs/maintenance.md's convention): ``optimize.relayout.afterWrite``,
``.afterMetadata``, ``.afterCommit``.
"""
from __future__ import annotations

import json
import math
import time
from typing import TYPE_CHECKING, Callable, Sequence

from skipstone.errors import SkipstoneError
from skipstone.layout import Amoeba, Hilbert, KdTree, Paw, QdTree, ZOrder
from skipstone.layout.protocols import LayoutSpec
from skipstone.layout.queries import Query
from skipstone.layout.serialization import layout_to_json
from skipstone.table import failpoints, manifest
from skipstone.table.container import delete, new_staging_dir, read_sample, relative
from skipstone.table.create import MAX_BLOCK_FACTOR, with_actual_rows
from skipstone.table.indexing import replace_metadata
from skipstone.table.jvm_layout import build_layout
from skipstone.table.lease import writer_lease
from skipstone.table.optimize import OptimizeResult, abandon_rewrite
from skipstone.table.writer import WrittenFile, write_blocks

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

WORKLOAD_WINDOW = 100

# name -> spec from (block rows, columns or None, logged predicates as JSON)
_SPECS: dict[str, Callable[[int, Sequence[str] | None, list[dict]], LayoutSpec]] = {
    "amoeba": lambda rows, columns, _: Amoeba(block_rows=rows, columns=columns),
    "kd": lambda rows, columns, _: KdTree(block_rows=rows, columns=columns),
    "zorder": lambda rows, columns, _: ZOrder(block_rows=rows, columns=columns),
    "hilbert": lambda rows, columns, _: Hilbert(block_rows=rows, columns=columns),
    "paw": lambda rows, _, queries: Paw(block_rows=rows, queries=queries),
    "qdtree": lambda rows, _, queries: QdTree(block_rows=rows, queries=queries),
}
LAYOUTS = tuple(_SPECS)
_FROM_WORKLOAD = ("paw", "qdtree")


def layout_spec(base: manifest.TableVersion, name: str, columns: Sequence[str], workload: DataFrame | None) -> LayoutSpec:
    """The spec ``LAYOUT name BY (columns)`` means for the table at ``base``, or an error naming
    the layout, the column or the missing workload."""
    shown = f"LAYOUT {name.upper()} of {base.root}"
    if name not in _SPECS:
        raise SkipstoneError(f"{shown}: unknown layout (one of {', '.join(n.upper() for n in LAYOUTS)})")
    known = [c.name for c in base.tree.schema.columns]
    repeated = sorted({c for c in columns if list(columns).count(c) > 1})
    if repeated:
        raise SkipstoneError(f"{shown}: column {', '.join(repeated)} is named more than once in BY (...)")
    for c in columns:
        if c not in known:
            raise SkipstoneError(f"{shown}: no layout column {c!r} (the table's: {', '.join(known)})")
    queries: list[dict] = []
    if name in _FROM_WORKLOAD:
        if columns:
            raise SkipstoneError(f"{shown}: it cuts where the logged queries cut and takes no columns")
        queries = _logged_predicates(workload, base)
        if not queries:
            raise SkipstoneError(f"{shown}: it is built from the table's logged workload, which holds no query "
                                 "with a predicate on the layout's columns yet")
    block_rows = max(1, round(float(base.properties["layout.blockRows"])))
    return _SPECS[name](block_rows, tuple(columns) or None, queries)


def relayout(spark: SparkSession, base: manifest.TableVersion, name: str, columns: Sequence[str],
             workload: DataFrame | None) -> OptimizeResult:
    """Rewrite every file of ``base`` under ``LAYOUT name BY (columns)`` and commit; if a
    concurrent commit conflicts, remove what was written and raise."""
    from pyspark.sql.types import StructType

    started = time.monotonic()
    spec = layout_spec(base, name, columns, workload)
    root = base.root
    schema = StructType.fromJson(json.loads(base.properties["schema"]))
    sample = read_sample(spark, root, base.properties["layout.sample"], base.tree.schema)
    total = sum(f.rows for f in base.files)
    block_rows = float(base.properties["layout.blockRows"])
    layout = build_layout(spark, spec, sample, block_rows, float(max(total, 1)))
    types = {c.name: schema[c.name].dataType for c in layout.schema.columns}
    staging = new_staging_dir(root, "relayout")
    published: set[str] = set()
    written: list[WrittenFile] = []
    # the lease keeps a concurrent vacuum, even a forced one, off the files not committed yet
    with writer_lease(spark, root, "relayout", staging, base.version):
        try:
            if base.files:
                rows = spark.read.schema(schema).parquet(*[base.absolute(f) for f in base.files])
                written = write_blocks(spark, rows, layout, types, layout.block_ids.tolist(), staging, root,
                                       math.ceil(MAX_BLOCK_FACTOR * block_rows))
            failpoints.check(spark, "optimize.relayout.afterWrite")
            new = [(w.path, w.size, w.mtime) for w in written]
            metadata_version, counts = replace_metadata(spark, root, new, new) if new else (base.metadata_version, {})
            published = {path for path, _, _ in new}
            failpoints.check(spark, "optimize.relayout.afterMetadata")
            added = [manifest.DataFile(relative(root, w.path), w.size, w.mtime, w.block, counts[w.path]) for w in written]
            if sum(f.rows for f in added) != total:
                raise SkipstoneError(f"LAYOUT {name.upper()} of {root} wrote {sum(f.rows for f in added)} rows "
                                     f"for {total}; nothing was committed")
            reason = f"LAYOUT {name.upper()}" + (f" BY ({', '.join(columns)})" if columns else "") + \
                f": every block rewritten, {layout.block_count} blocks"
            removed = sorted(f.path for f in base.files)
            info = {"strategy": "layout", "reason": reason, "policy": f"LAYOUT {name.upper()}", "selected": removed,
                    "bytesRead": sum(f.size for f in base.files), "rowsRewritten": total, "filesAdded": len(added),
                    "filesRemoved": len(removed), "description": reason,
                    "durationMs": round(1000 * (time.monotonic() - started), 1)}
            committed = manifest.commit(spark, root, base.version, "OPTIMIZE", added, removed,
                                        layout=layout_to_json(with_actual_rows(layout, added)),
                                        metadata_version=metadata_version,
                                        properties={"layout.spec": json.dumps(spec.to_json())}, commit_info=info)
        except Exception as e:  # not a SimulatedCrash: a killed process cleans nothing up either
            failure = abandon_rewrite(spark, root, written, published, staging, e)
            if failure is e:
                raise
            raise failure from e
    failpoints.check(spark, "optimize.relayout.afterCommit")
    delete(spark, staging)
    return OptimizeResult(committed.version, 0.0, float(total), total, len(added), len(removed), "layout", reason,
                          sum(f.size for f in base.files))


def _logged_predicates(workload: DataFrame | None, base: manifest.TableVersion) -> list[dict]:
    """The last ``WORKLOAD_WINDOW`` logged predicates the layout can read, oldest first, as JSON."""
    if workload is None:
        return []
    schema = base.tree.schema
    readable = []
    for r in workload.where("predicate IS NOT NULL").orderBy("time").select("predicate").collect():
        try:
            predicate = json.loads(r.predicate)
            if not Query.from_json(predicate, schema).boxes.is_empty:
                readable.append(predicate)
        except (ValueError, TypeError, KeyError):
            continue  # a predicate on columns the layout does not know: no use to a tree
    return readable[-WORKLOAD_WINDOW:]
