"""A writer's lease on a table (the JVM's ``io.skipstone.table.WriterLeases``): held from before
its first file until it committed or cleaned up, so that a vacuum, even a forced one, keeps the
files it has not committed yet."""
from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

from skipstone.session import java_call

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@contextmanager
def writer_lease(spark: SparkSession, root: str, operation: str, staging: str, read_version: int) -> Iterator[None]:
    leases = spark._jvm.io.skipstone.table.WriterLeases  # type: ignore[union-attr]
    lease = java_call(leases.acquire, spark._jsparkSession, root, operation, staging, int(read_version))
    try:
        yield
    finally:
        # also after a simulated kill: a killed writer's lease lapses on its own, later
        java_call(leases.release, spark._jsparkSession, lease)
