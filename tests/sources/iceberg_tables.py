"""Iceberg tables for the tests of Skipstone's indexes over them (``make test-iceberg``).

The tests need Iceberg's runtime jar and extension in the session: ``make test-iceberg`` passes
them through ``SKIPSTONE_TEST_CONF`` on the Spark Iceberg supports. Each test module registers a
Hadoop catalog of its own (``ice``) whose warehouse is a temporary directory. Anywhere else
(``make test``, on Skipstone's own pyspark) every test of these modules is skipped.
"""
from __future__ import annotations

import itertools
import os
from typing import Any, Sequence

import pytest

CATALOG = "ice"
_names = itertools.count()


def require_iceberg(spark: Any) -> None:
    """Skips the calling test unless Iceberg's classes are on this Spark's class path."""
    from py4j.java_gateway import JavaClass

    # py4j answers a package, not a class, for a name the JVM cannot load
    if not isinstance(spark._jvm.org.apache.iceberg.spark.SparkCatalog, JavaClass):
        pytest.skip("Iceberg is not in this session: run `make test-iceberg`")


def register_catalog(spark: Any, warehouse: str) -> None:
    """The Hadoop catalog ``ice`` over ``warehouse``, in this session (catalogs load on first use)."""
    spark.conf.set(f"spark.sql.catalog.{CATALOG}", "org.apache.iceberg.spark.SparkCatalog")
    spark.conf.set(f"spark.sql.catalog.{CATALOG}.type", "hadoop")
    spark.conf.set(f"spark.sql.catalog.{CATALOG}.warehouse", warehouse)


def new_table(spark: Any, schema: str, partitioned_by: str = "", column_stats: bool = False, **properties: str) -> str:
    """A new, empty table of the catalog (format v2) with ``schema`` and table ``properties``;
    its name. Without ``column_stats`` Iceberg keeps no column statistics (metrics mode
    ``none``), so that Iceberg's own planning rules no file out and what is skipped is Skipstone's."""
    name = f"{CATALOG}.db.t{next(_names)}"
    props = {"format-version": "2", **({} if column_stats else {"write.metadata.metrics.default": "none"}), **properties}
    spark.sql(f"CREATE TABLE {name} ({schema}) USING iceberg "
              + (f"PARTITIONED BY ({partitioned_by}) " if partitioned_by else "")
              + "TBLPROPERTIES (" + ", ".join(f"'{k}' = '{v}'" for k, v in props.items()) + ")")
    return name


def merge_on_read(spark: Any, schema: str) -> str:
    """A new table whose deletes write position delete files (merge-on-read)."""
    return new_table(spark, schema, **{"write.delete.mode": "merge-on-read", "write.update.mode": "merge-on-read",
                                       "write.merge.mode": "merge-on-read"})


def write(spark: Any, table: str, rows: Sequence[tuple[Any, ...]], schema: str, files: int = 1) -> None:
    """Appends ``rows`` to ``table`` in ``files`` data files (one commit, one snapshot)."""
    spark.createDataFrame(list(rows), schema).repartition(files).writeTo(table).append()


def snapshot_ids(spark: Any, table: str) -> list[int]:
    """The table's snapshots, oldest first."""
    return [r.snapshot_id for r in spark.sql(f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at").collect()]


def current_snapshot(spark: Any, table: str) -> int:
    """The snapshot a read of the table reads."""
    return snapshot_ids(spark, table)[-1]


def live_files(spark: Any, table: str) -> set[str]:
    """The data files of the table's current snapshot, as Iceberg lists them."""
    return {os.path.basename(r.file_path) for r in spark.sql(f"SELECT file_path FROM {table}.data_files").collect()}


def delete_files(spark: Any, table: str) -> int:
    """How many delete files (position or equality) the current snapshot has."""
    return spark.sql(f"SELECT count(*) FROM {table}.delete_files").collect()[0][0]


def location(spark: Any, table: str) -> str:
    """The table's location, as its catalog records it."""
    rows = spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect()
    return next(r.data_type for r in rows if r.col_name == "Location")
