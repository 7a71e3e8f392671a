"""What SQL's ``OPTIMIZE`` runs in Python when the session's driver is Python (pyspark).

Layout policies, Python-computed index roles and the layouts built from the logged workload
(``relayout.python_layouts``: PAW, QDTREE, and AUTO, the columns chosen from it) are Python; a session whose driver is Python registers
:class:`SqlOptimizeHandler` with the JVM over py4j's callback server, so that
``spark.sql("OPTIMIZE t")`` runs the JVM's strategy loop with the same default policy and roles
as ``t.optimize()``, and ``OPTIMIZE t LAYOUT PAW`` the same rewrite as ``skipstone.table.relayout``.
The layouts the JVM builds (``LAYOUT KD BY (a, b)``) never come here. A session without Python
(``spark-sql``, Scala, JDBC) runs what the JVM can and says what needs Python
(``io.skipstone.sql.commands.OptimizeCommand``).
"""
from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

from skipstone.errors import SkipstoneError
from skipstone.jvm_callbacks import start_callbacks
from skipstone.session import on_jvm_entry

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from skipstone.table.optimize import OptimizeResult

_REGISTERED = "_skipstone_sql_optimize"  # marks a gateway whose JVM has our handler


class SqlOptimizeHandler:
    """The JVM's ``io.skipstone.table.PythonOptimizer``: for ``OPTIMIZE t``, the default layout
    policy's proposal and the Python roles of the table's indexes (the JVM runs the strategy
    loop); for ``OPTIMIZE t LAYOUT``, the rewrite under ``{"name", "columns"}`` of a layout
    Python builds; for ``DESCRIBE SKIPPING ADVICE``, the table's index advice."""

    def optimize(self, jsession: Any, root: str, layout_json: str) -> str:
        from skipstone.table.handle import ManagedTable
        from skipstone.table.relayout import relayout

        spark = _session(jsession)
        try:
            table = ManagedTable(spark, root)
            layout = json.loads(layout_json)
            result = relayout(spark, table.current(), layout["name"], layout["columns"])
            return json.dumps([] if result is None else [_as_json(result)])
        except (SkipstoneError, ValueError) as e:  # the statement's error (a spec's own checks raise ValueError)
            return json.dumps({"error": str(e)})

    def layouts(self) -> str:
        from skipstone.table.relayout import python_layouts

        return json.dumps(list(python_layouts()))

    def advise(self, jsession: Any, root: str) -> str:
        """``DESCRIBE SKIPPING ADVICE ON t``: the rows of ``t.advise()``, as JSON objects."""
        from skipstone.table.handle import ManagedTable

        try:
            return json.dumps([r.asDict() for r in ManagedTable(_session(jsession), root).advise().collect()])
        except (SkipstoneError, ValueError) as e:
            return json.dumps({"error": str(e)})

    def propose(self, jsession: Any, root: str, base_version: int) -> str | None:
        from skipstone.table.driver import PythonDriver

        return PythonDriver(_session(jsession)).propose(jsession, root, base_version)

    def roles(self, jsession: Any, root: str) -> Any:
        from skipstone.table.transaction import python_roles

        return python_roles(_session(jsession), root)

    class Java:
        implements = ["io.skipstone.table.PythonOptimizer"]


def register(spark: SparkSession) -> None:
    """Make SQL's ``OPTIMIZE`` in this JVM run the Python implementation (idempotent per gateway)."""
    gateway = spark.sparkContext._gateway
    if gateway.__dict__.get(_REGISTERED):  # __dict__: attribute lookups on a gateway fall back to the JVM
        return
    start_callbacks(spark)
    spark._jvm.io.skipstone.table.PythonOptimizer.register(SqlOptimizeHandler())  # type: ignore[union-attr]
    gateway.__dict__[_REGISTERED] = True


# Any Skipstone call on a session registers the handler, as the session's first call did when
# skipstone.session imported this module itself (see on_jvm_entry).
on_jvm_entry(register)


def _session(jsession: Any) -> SparkSession:
    """The Python session over the JVM session a callback was handed."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    sc = SparkContext._active_spark_context
    assert sc is not None, "the JVM calls this only from a running SparkContext"
    return SparkSession(sc, jsession)


def _as_json(result: OptimizeResult) -> dict[str, Any]:
    """The JVM's ``OptimizeResult`` JSON (camelCase keys)."""
    d = dataclasses.asdict(result)
    return {"version": d["version"], "benefit": d["benefit"], "cost": d["cost"], "rowsRewritten": d["rows_rewritten"],
            "filesAdded": d["files_added"], "filesRemoved": d["files_removed"], "strategy": d["strategy"],
            "reason": d["reason"], "bytesRead": d["bytes_read"]}
