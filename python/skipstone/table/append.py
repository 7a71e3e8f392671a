"""append: new rows routed through the current layout into new files, indexed, committed, in the
JVM (``io.skipstone.table.Append``)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from skipstone.table.optimize import OptimizeResult
from skipstone.table.transaction import operations, python_roles, run

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@dataclass(frozen=True)
class AppendResult:
    """What one append committed (it is also a row of ``history()``). With ``optimize.auto``,
    ``optimize`` is what the iteration run after the commit committed, and ``optimize_error`` why
    it failed: the append is committed either way, so a caller must not retry it."""

    version: int
    rows: int
    files_added: int
    optimize: OptimizeResult | None = None
    optimize_error: str | None = None


def append_rows(spark: SparkSession, root: str, df: DataFrame) -> AppendResult:
    """Append ``df``'s rows (the table's columns, in any order); a concurrent layout change makes
    the JVM route them again through the winner's layout."""
    text = run(operations(spark).Append.runFromPython, spark._jsparkSession, root, df._jdf, python_roles(spark, root))
    done = json.loads(text)
    return AppendResult(int(done["version"]), int(done["rows"]), int(done["filesAdded"]))
