"""Writing rows into one file per block: routed through the layout and written by the JVM
(``io.skipstone.table.RoutedWrite``), the one place rows are routed to blocks."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence

from skipstone.layout.layout import Layout
from skipstone.layout.serialization import layout_to_json
from skipstone.session import jvm_entry

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import DataType


@dataclass(frozen=True)
class WrittenFile:
    path: str  # canonical absolute URI, as skipping metadata spells it
    size: int
    mtime: int
    block: int


def write_blocks(spark: SparkSession, rows: DataFrame, layout: Layout, types: Mapping[str, DataType],
                 blocks: Sequence[int], staging: str, root: str, max_rows_per_file: int) -> list[WrittenFile]:
    """Route ``rows`` through ``layout``, one task and file per block of ``blocks`` (several files
    when a block holds more than ``max_rows_per_file`` rows), written into ``staging`` (a fresh
    directory under the container, so this writer alone owns it) and then renamed into ``root``
    as ``b<block>-<Spark's name>``: Spark's own listing reads only files directly in a directory
    without partition columns, so plain readers need them there.

    The JVM reads each layout column's type from ``rows``' schema; ``types`` is not consulted.
    A row whose block is not in ``blocks`` means the caller's tree change is wrong (it would
    route a rewritten row into a block that keeps its files): that raises, nothing is committed.
    """
    jvm_entry(spark)  # a clear error when the session has no Skipstone jar or extension
    routed_write = spark._jvm.io.skipstone.table.RoutedWrite  # type: ignore[union-attr]
    # A failure propagates as Spark raised it, as a failed Spark write does: the callers clean up
    # and say that nothing was committed, with the failure's own message.
    text = routed_write.write(spark._jsparkSession, rows._jdf, json.dumps(layout_to_json(layout), allow_nan=False),
                              json.dumps([int(b) for b in blocks]), staging, root, int(max_rows_per_file))
    return [WrittenFile(f["path"], int(f["size"]), int(f["modificationTime"]), int(f["block"])) for f in json.loads(text)]
