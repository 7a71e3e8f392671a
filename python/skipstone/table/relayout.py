"""``OPTIMIZE t LAYOUT <name> [BY (columns)]``: the whole table rewritten under a new layout.

The spec is built on the table's stored sample with the table's target block size (as
``Skipstone.create`` builds it), every row is routed through it in the executors, and the new
files, their skipping metadata and the new layout are committed in one version that replaces
every file; readers keep the version they resolved. ``PAW`` and ``QDTREE`` are built from the
table's logged workload (its last ``WORKLOAD_WINDOW`` readable queries). The spec is built here;
the JVM routes, writes and commits (``io.skipstone.table.Relayout``, failpoints
``optimize.relayout.afterWrite``, ``.afterMetadata``, ``.afterCommit``).
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable, Sequence

from skipstone.errors import SkipstoneError
from skipstone.layout import Amoeba, Hilbert, KdTree, Paw, QdTree, ZOrder
from skipstone.layout.protocols import LayoutSpec
from skipstone.layout.queries import Query
from skipstone.layout.serialization import layout_to_json
from skipstone.table import manifest
from skipstone.table.container import read_sample
from skipstone.table.jvm_layout import build_layout
from skipstone.table.optimize import OptimizeResult
from skipstone.table.transaction import operations, python_roles, run

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
    """Rewrite every file of ``base`` under ``LAYOUT name BY (columns)`` and commit, in the JVM
    (``io.skipstone.table.Relayout``); if a concurrent commit conflicts, what was written is
    removed and a SkipstoneError says so."""
    spec = layout_spec(base, name, columns, workload)
    sample = read_sample(spark, base.root, base.properties["layout.sample"], base.tree.schema)
    total = sum(f.rows for f in base.files)
    layout = build_layout(spark, spec, sample, float(base.properties["layout.blockRows"]), float(max(total, 1)))
    text = run(operations(spark).Relayout.runFromPython, spark._jsparkSession, base.root, int(base.version),
               json.dumps(layout_to_json(layout), allow_nan=False), json.dumps(spec.to_json()), name.upper(),
               json.dumps(list(columns)), python_roles(spark, base.root))
    return OptimizeResult.from_json(json.loads(text))


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
