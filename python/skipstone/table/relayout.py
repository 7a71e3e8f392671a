"""``OPTIMIZE t LAYOUT <name> [BY (columns)]``: the whole table rewritten under a new layout.

Every row is routed through the new layout in the executors, and the new files, their skipping
metadata and the layout are committed in one version that replaces every file; readers keep
the version they resolved (``io.skipstone.table.Relayout``, failpoints
``optimize.relayout.afterWrite``, ``.afterMetadata``, ``.afterCommit``).

The layouts the JVM builds (its names are ``io.skipstone.layout.builders.BuiltLayouts``) are
built there too, on the table's stored sample with its block size: the same call SQL's
``OPTIMIZE`` makes from any session. The layouts in ``FROM_WORKLOAD`` are built here, from the
table's logged workload (its last ``WORKLOAD_WINDOW`` readable queries), and handed over as a
document. ``LAYOUT AUTO`` chooses the layout columns from that workload (``AutoColumns``) and
rewrites every block as the policy's change, so that the history records the choice.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Sequence

from skipstone.errors import SkipstoneError
from skipstone.layout.auto.policy import AutoColumns
from skipstone.layout.bounded.patterns import template_of
from skipstone.layout.queries import Query
from skipstone.layout.serialization import layout_to_json
from skipstone.layout.workload_specs import Paw, QdTree, WorkloadSpec
from skipstone.session import java_call
from skipstone.table import manifest
from skipstone.table.container import read_sample
from skipstone.table.jvm_layout import builders
from skipstone.table.optimize import OptimizeResult, apply, logged_predicates, logged_queries, plan
from skipstone.table.transaction import operations, python_roles, run

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

WORKLOAD_WINDOW = 100

# The layouts Python builds, by the names SQL gives them: the one place these names are
# declared. The JVM learns them from the registered optimizer (sql_optimize.py).
FROM_WORKLOAD: dict[str, type[WorkloadSpec]] = {"paw": Paw, "qdtree": QdTree}
AUTO = "auto"  # the layout columns chosen from the logged workload


def python_layouts() -> tuple[str, ...]:
    """The names ``OPTIMIZE ... LAYOUT`` takes that Python builds, lower case."""
    return tuple(FROM_WORKLOAD) + (AUTO,)


def layout_names(spark: SparkSession) -> tuple[str, ...]:
    """Every name ``OPTIMIZE ... LAYOUT`` takes, lower case: the JVM's, then Python's."""
    return tuple(json.loads(java_call(builders(spark).layoutNames))) + python_layouts()


def relayout(spark: SparkSession, base: manifest.TableVersion, name: str, columns: Sequence[str]
             ) -> OptimizeResult | None:
    """Rewrite every file of ``base`` under ``LAYOUT name BY (columns)`` and commit, in the JVM
    (``io.skipstone.table.Relayout``); the layouts built from the workload read the table's log
    themselves (in the driver, once). If a concurrent commit conflicts, what was written is
    removed and a SkipstoneError says so. ``LAYOUT AUTO`` commits nothing (None) when the table's
    tree already serves its logged queries as well as any the workload's columns give."""
    name = name.lower()
    if name == AUTO:
        return relayout_auto(spark, base, columns)
    roles = python_roles(spark, base.root)
    if name in FROM_WORKLOAD:
        spec = workload_spec(base, name, columns, logged_predicates(spark, base.root))
        sample = read_sample(spark, base.root, base.properties["layout.sample"], base.tree.schema)
        total = sum(f.rows for f in base.files)
        layout = spec.build(sample, float(base.properties["layout.blockRows"]), float(max(total, 1)))
        text = run(operations(spark).Relayout.runFromPython, spark._jsparkSession, base.root, int(base.version),
                   json.dumps(layout_to_json(layout), allow_nan=False), json.dumps(spec.to_json()), name.upper(),
                   json.dumps(list(columns)), roles)
    else:
        known = layout_names(spark)
        if name not in known:
            raise SkipstoneError(f"LAYOUT {name.upper()} of {base.root}: unknown layout "
                                 f"(one of {', '.join(n.upper() for n in known)})")
        text = run(operations(spark).Relayout.builtInFromPython, spark._jsparkSession, base.root, int(base.version),
                   name, json.dumps(list(columns)), roles, f"OPTIMIZE {base.root}")
    return OptimizeResult.from_json(json.loads(text))


def relayout_auto(spark: SparkSession, base: manifest.TableVersion, columns: Sequence[str]) -> OptimizeResult | None:
    """``OPTIMIZE t LAYOUT AUTO``: every block rewritten under the tree ``AutoColumns`` builds over
    the columns the last ``WORKLOAD_WINDOW`` logged queries call for. Asked explicitly, it runs
    even when the policy's gate would still wait for the workload to pay the rewrite back, but
    not when the table's tree is already as good (within the policy's margin): then None."""
    shown = f"LAYOUT AUTO of {base.root}"
    if columns:
        raise SkipstoneError(f"{shown}: it chooses the columns from the table's logged workload and takes no BY")
    pairs = logged_predicates(spark, base.root)  # read once: checked here, planned from below
    logged = [q for q, _ in logged_queries(pairs, base)]
    if not logged:
        raise SkipstoneError(f"{shown}: the table has no logged workload yet (no logged query with a filter); "
                             "run queries on it first (they are logged while workloadLog.enabled is on)")
    if not any(template_of(q) for q in logged[-WORKLOAD_WINDOW:]):
        raise SkipstoneError(f"{shown}: none of its last {min(len(logged), WORKLOAD_WINDOW)} logged queries "
                             f"filters on a layout column ({', '.join(base.tree.schema.names)})")
    planned = plan(spark, base, pairs, AutoColumns(window=WORKLOAD_WINDOW, force=True))
    if planned is None:
        return None
    return apply(spark, planned, f"LAYOUT AUTO: {planned.change.description}")


def workload_spec(base: manifest.TableVersion, name: str, columns: Sequence[str],
                  logged: Sequence[tuple[str, int]]) -> WorkloadSpec:
    """The spec ``LAYOUT name`` (one of ``FROM_WORKLOAD``) means for the table at ``base`` given
    its ``logged`` (predicate JSON, version) pairs, or an error naming the layout and what is missing."""
    shown = f"LAYOUT {name.upper()} of {base.root}"
    if columns:
        raise SkipstoneError(f"{shown}: it cuts where the logged queries cut and takes no columns")
    queries = _readable_predicates(logged, base)
    if not queries:
        raise SkipstoneError(f"{shown}: it is built from the table's logged workload, which holds no query "
                             "with a predicate on the layout's columns yet")
    block_rows = max(1, round(float(base.properties["layout.blockRows"])))
    return FROM_WORKLOAD[name](block_rows=block_rows, queries=queries)


def _readable_predicates(logged: Sequence[tuple[str, int]], base: manifest.TableVersion) -> list[dict]:
    """The last ``WORKLOAD_WINDOW`` logged predicates the layout can read, oldest first, as JSON."""
    schema = base.tree.schema
    readable = []
    for text, _ in logged:
        try:
            predicate = json.loads(text)
            if not Query.from_json(predicate, schema).boxes.is_empty:
                readable.append(predicate)
        except (ValueError, TypeError, KeyError):
            continue  # a predicate on columns the layout does not know: no use to a tree
    return readable[-WORKLOAD_WINDOW:]
