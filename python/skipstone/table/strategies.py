"""File-selection strategies of continuous optimization (the table-optimization guide's model):
each looks at the newest version and selects a bounded batch of work, or nothing. The JVM
selects (``io.skipstone.table.UnindexedSelection``, ``CompactionSelection``), so that SQL's
``OPTIMIZE`` and Python choose alike; compaction selects and runs there
(``skipstone.table.compaction``)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from skipstone.session import java_call
from skipstone.table import manifest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class UnindexedSelection:
    """Files other writers dropped into the root, oldest first, within the batch."""

    paths: tuple[str, ...]  # absolute
    bytes: int
    reason: str
    absorbed: tuple[dict, ...] = ()  # per file, its name and content identity as selected (what a commit records)


def select_unindexed(spark: SparkSession, base: manifest.TableVersion) -> UnindexedSelection | None:
    tables = spark._jvm.io.skipstone.table.Tables  # type: ignore[union-attr]
    text = java_call(tables.selectUnindexed, spark._jsparkSession, base.root, int(base.version))
    if text is None:
        return None
    d = json.loads(text)
    return UnindexedSelection(tuple(d["paths"]), int(d["bytes"]), str(d["reason"]), tuple(d.get("absorbed", ())))
