"""What a TABLE or TARGET argument names: a directory, or a table of the session catalog.

The rule, the same for every command: an argument holding ``/`` or ``:`` is a path or URI
(``/data/events``, ``./events``, ``s3a://bucket/events``); any other is a catalog name (``events``,
``db.events``), looked up in the session catalog. A directory in the current directory is
``./events``.

>>> is_catalog_name("db.events"), is_catalog_name("./events"), is_catalog_name("s3a://b/events")
(True, False, False)
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from skipstone.errors import SkipstoneError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from skipstone import ManagedTable

TABLE_HELP = "The managed table: a directory (a path holding / or :, e.g. ./events) or a catalog name (db.events)."
TARGET_HELP = "A dataset or managed table: a directory (a path holding / or :, e.g. ./weather) or a catalog name."


def is_catalog_name(target: str) -> bool:
    """Whether ``target`` names a catalog table rather than a directory (see the module's rule)."""
    return "/" not in target and ":" not in target


def table_root(spark: SparkSession, target: str) -> str:
    """The directory ``target`` names: itself, or the catalog table's location."""
    from skipstone.cli.jvm_metadata import catalog_location

    return catalog_location(spark, target) if is_catalog_name(target) else target


def open_table(spark: SparkSession, table: str) -> ManagedTable:
    """The managed table ``table`` names (a path or a catalog name, by the rule above); an
    error naming it if it is none."""
    from skipstone import ManagedTable, Skipstone

    root = table_root(spark, table)
    found = Skipstone.for_path(spark, root)
    if not isinstance(found, ManagedTable):
        raise SkipstoneError(f"{table} is not a Skipstone managed table (no log under {root}/_skipstone/log); "
                             "create one with `skipstone create`")
    return found
