"""Delta Lake tables for the tests of Skipstone's indexes over them (``make test-delta``).

The tests need Delta's jar, its extension and its catalog in the session: ``make test-delta``
passes them through ``SKIPSTONE_TEST_CONF`` on the Spark Delta supports. Anywhere else (``make
test``, on Skipstone's own pyspark) every test of these modules is skipped.
"""
from __future__ import annotations

import glob
import json
import os
from typing import Any, Iterable, Sequence

import pytest

DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"


def require_delta(spark: Any) -> None:
    """Skips the calling test unless Delta Lake is loaded and its extension active."""
    extensions = spark.conf.get("spark.sql.extensions", "") or ""
    if DELTA_EXTENSION not in extensions:
        pytest.skip("Delta Lake is not in this session: run `make test-delta`")
    from py4j.java_gateway import JavaClass

    # py4j answers a package, not a class, for a name the JVM cannot load
    if not isinstance(spark._jvm.org.apache.spark.sql.delta.DeltaLog, JavaClass):
        pytest.skip("Delta Lake's jar is not on this Spark's class path: run `make test-delta`")


def write(spark: Any, path: str, rows: Sequence[tuple[Any, ...]], schema: str, files: int = 1,
          mode: str = "append", partition_by: Sequence[str] = (), **options: str) -> None:
    """Writes ``rows`` to the Delta table at ``path`` in ``files`` files (one commit)."""
    df = spark.createDataFrame(list(rows), schema).repartition(files)
    writer = df.write.format("delta").mode(mode).options(**options)
    if partition_by:
        writer = writer.partitionBy(*partition_by)
    writer.save(path)


def sql_table(path: str) -> str:
    """The table at ``path`` as SQL names it."""
    return f"delta.`{path}`"


def live_files(spark: Any, path: str) -> set[str]:
    """The data files of the table's current snapshot, as Delta lists them."""
    return {os.path.basename(f) for f in spark.read.format("delta").load(path).inputFiles()}


def parquet_files_on_disk(path: str) -> set[str]:
    """Every data file under the table's directory, live or removed but not vacuumed."""
    return {os.path.basename(f) for f in glob.glob(os.path.join(path, "**", "*.parquet"), recursive=True)}


def log_actions(path: str) -> Iterable[dict[str, Any]]:
    """Every action of the table's JSON log, in commit order."""
    for entry in sorted(glob.glob(os.path.join(path, "_delta_log", "*.json"))):
        with open(entry) as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def has_deletion_vectors(path: str) -> bool:
    """Whether some file of the table was given a deletion vector."""
    return any((a.get("add") or {}).get("deletionVector") for a in log_actions(path))


def current_version(spark: Any, path: str) -> int:
    """The table's newest version, from its history."""
    return int(spark.sql(f"DESCRIBE HISTORY {sql_table(path)}").agg({"version": "max"}).collect()[0][0])
