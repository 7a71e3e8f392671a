"""What an append committed. The append itself runs in the JVM (``io.skipstone.table.SkipstoneTable.append``:
rows routed through the current layout into new files, indexed, committed; with ``optimize.auto``
one optimize iteration after it)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from skipstone.table.optimize import OptimizeResult


@dataclass(frozen=True)
class AppendResult:
    """What one append committed (it is also a row of ``history()``). With ``optimize.auto``,
    ``optimize`` is what the iteration run after the commit committed, and ``optimize_error`` why
    it failed: the append is committed either way, so a caller must not retry it.

    >>> done = t.append(spark.range(1000).selectExpr("id AS a", "id % 97 AS b"))   # doctest: +SKIP
    >>> done.version, done.rows, done.files_added                                  # doctest: +SKIP
    (2, 1000, 3)
    """

    version: int
    rows: int
    files_added: int
    optimize: OptimizeResult | None = None
    optimize_error: str | None = None

    @staticmethod
    def from_json(d: dict[str, Any]) -> AppendResult:
        """Python's view of the JVM's ``AppendResult`` JSON."""
        optimized = d.get("optimize")
        return AppendResult(int(d["version"]), int(d["rows"]), int(d["filesAdded"]),
                            None if optimized is None else OptimizeResult.from_json(optimized), d.get("optimizeError"))
