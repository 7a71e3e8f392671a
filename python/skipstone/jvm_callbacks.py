"""Python code the JVM calls: py4j's callback server, started on demand.

Only rare orchestration goes this way (a table operation asking Python for what a Python
function computes, SQL's ``OPTIMIZE`` running a layout policy); the query path never does.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def start_callbacks(spark: SparkSession) -> None:
    """Start py4j's callback server for ``spark``'s gateway, as pyspark does for streaming
    listeners (idempotent)."""
    from pyspark.java_gateway import ensure_callback_server_started

    ensure_callback_server_started(spark.sparkContext._gateway)
