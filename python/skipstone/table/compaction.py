"""Compaction runs in the JVM (``io.skipstone.table.Compaction``), the code SQL's ``OPTIMIZE`` runs
too: each fragmented block's files are rewritten into as few files as its rows need. Python adds
only what a Python function computes: the metadata roles of indexes such as ``GeoBox``."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from skipstone.dataset import Skipstone
from skipstone.errors import SkipstoneError
from skipstone.indexes.stored import index_from_spec
from skipstone.jvm_callbacks import start_callbacks
from skipstone.per_file import needs_python
from skipstone.table import manifest
from skipstone.table.failpoints import SimulatedCrash
from skipstone.table.optimize import OptimizeResult

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def compact(spark: SparkSession, base: manifest.TableVersion) -> OptimizeResult | None:
    """Compact the fragmented blocks of ``base`` that fit one batch; None when none is fragmented."""
    from py4j.protocol import Py4JJavaError

    roles = _python_roles(spark, base.root)
    compaction = spark._jvm.io.skipstone.table.Compaction  # type: ignore[union-attr]
    try:
        text = compaction.runFromPython(spark._jsparkSession, base.root, int(base.version), roles)
    except Py4JJavaError as e:
        failure = e.java_exception
        if failure.getClass().getName() == "io.skipstone.table.InjectedFailure":
            raise SimulatedCrash(str(failure.getMessage())) from None  # a test's failpoint: the JVM cleaned nothing up
        raise SkipstoneError(f"compaction of {base.root} failed and committed nothing: {failure.getMessage()}") from None
    return None if text is None else result_of(json.loads(text))


def result_of(d: dict[str, Any]) -> OptimizeResult:
    """Python's view of the JVM's ``OptimizeResult`` JSON."""
    return OptimizeResult(int(d["version"]), float(d["benefit"]), float(d["cost"]), int(d["rowsRewritten"]),
                          int(d["filesAdded"]), int(d["filesRemoved"]), str(d["strategy"]), str(d["reason"]),
                          int(d["bytesRead"]))


class PythonRoles:
    """The roles of the table's indexes that a Python function computes, for the files the JVM
    just wrote; the JVM calls ``compute`` over py4j's callback server."""

    def __init__(self, spark: SparkSession, root: str, definition: dict[str, Any]) -> None:
        self._spark, self._root, self._definition = spark, root, definition

    def compute(self, files: Any) -> Any:
        from pyspark.sql import DataFrame

        dataset = Skipstone(self._spark, self._root, "parquet")
        return dataset._stored_python_roles(DataFrame(files, self._spark), self._definition)

    class Java:
        implements = ["io.skipstone.table.PythonRoles"]


def _python_roles(spark: SparkSession, root: str) -> PythonRoles | None:
    """A callback when the table's indexes have roles only Python computes, else None (the JVM
    then needs no callback server)."""
    current = Skipstone(spark, root, "parquet")._current()
    if current is None:
        return None
    definition = current[2]
    indexes = [index_from_spec(ix["kind"], ix["columns"], ix.get("params", {})) for ix in definition["indexes"]]
    if not needs_python(indexes):
        return None
    start_callbacks(spark)
    return PythonRoles(spark, root, definition)
