"""Compaction runs in the JVM (``io.skipstone.table.Compaction``), the code SQL's ``OPTIMIZE`` runs
too: each fragmented block's files are rewritten into as few files as its rows need."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from skipstone.table import manifest
from skipstone.table.optimize import OptimizeResult
from skipstone.table.transaction import operations, python_roles, run

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def compact(spark: SparkSession, base: manifest.TableVersion) -> OptimizeResult | None:
    """Compact the fragmented blocks of ``base`` that fit one batch; None when none is fragmented."""
    text = run(operations(spark).Compaction.runFromPython, spark._jsparkSession, base.root, int(base.version),
               python_roles(spark, base.root))
    return None if text is None else OptimizeResult.from_json(json.loads(text))
