"""Managed tables: data laid out by a partitioning tree, a versioned manifest, a workload log
and adaptive optimization, on Spark. See docs/tables.md and docs/table-format.md."""
from __future__ import annotations

from skipstone.table.append import AppendResult
from skipstone.table.handle import ManagedTable
from skipstone.table.optimize import OptimizeResult

# Imported for its effect: any Skipstone call on a session then registers SQL OPTIMIZE's handler.
import skipstone.table.sql_optimize  # noqa: E402,F401  isort: skip

__all__ = ["AppendResult", "ManagedTable", "OptimizeResult"]
