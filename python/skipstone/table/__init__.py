"""Managed tables: data laid out by a partitioning tree, a versioned manifest, a workload log
and adaptive optimization, on Spark. See docs/tables.md and docs/table-format.md."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from skipstone.table.append import AppendResult
from skipstone.table.handle import ManagedTable
from skipstone.table.optimize import OptimizeResult

# Imported for its effect: any Skipstone call on a session then registers SQL OPTIMIZE's handler.
import skipstone.table.sql_optimize  # noqa: E402,F401  isort: skip
from skipstone.dataset import register_managed_tables
from skipstone.session import java_call
from skipstone.table.create import create_table
from skipstone.table.transaction import operations


class _Tables:
    """How Skipstone.for_path and Skipstone.create reach managed tables (skipstone.dataset)."""

    def open(self, spark: SparkSession, root: str) -> ManagedTable | None:
        return ManagedTable(spark, root) if java_call(operations(spark).Tables.isManaged, spark._jsparkSession, root) \
            else None

    def create(self, spark: SparkSession, path: str, df: DataFrame, layout: Any, indexes: Sequence[IndexType],
               sample_rows: int | None) -> ManagedTable:
        return ManagedTable(spark, create_table(spark, path, df, layout, indexes, sample_rows).root)


register_managed_tables(_Tables())

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from skipstone.indexes import IndexType

__all__ = ["AppendResult", "ManagedTable", "OptimizeResult"]
