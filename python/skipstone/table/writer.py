"""Writing rows into one file per block with Spark's Parquet writer."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence

from skipstone.errors import SkipstoneError
from skipstone.layout.layout import Layout
from skipstone.session import java_call, jvm_entry
from skipstone.table.block_routing import partition_keys, with_block_column

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import DataType

# Spark names a task's output part-<partition, 5+ digits>-<job uuid>-c<file counter>...
_PART = re.compile(r"/part-(\d{5,})-[^/]*$")


@dataclass(frozen=True)
class WrittenFile:
    path: str  # canonical absolute URI, as skipping metadata spells it
    size: int
    mtime: int
    block: int


_BLOCK_KEY = "__skipstone_block_key"


def write_blocks(spark: SparkSession, rows: DataFrame, layout: Layout, types: Mapping[str, DataType],
                 blocks: Sequence[int], staging: str, root: str, max_rows_per_file: int) -> list[WrittenFile]:
    """Route ``rows`` through ``layout``, one task and file per block of ``blocks`` (several files
    when a block holds more than ``max_rows_per_file`` rows), written into ``staging`` (a fresh
    directory under the container, so this writer alone owns it) and then renamed into ``root``
    as ``b<block>-<Spark's name>``: Spark's own listing reads only files directly in a directory
    without partition columns, so plain readers need them there. A rename keeps the size and
    modification time the listing reported.

    A row whose leaf is not in ``blocks`` means the caller's tree change is wrong (it would
    route a rewritten row into a block that keeps its files): that raises, nothing is committed.
    """
    position = {int(b): i for i, b in enumerate(blocks)}
    stray = len(blocks)
    keys = partition_keys(spark, stray + 1)
    keyed = with_block_column(spark, rows, layout, types, lambda block: keys[position.get(block, stray)], _BLOCK_KEY)
    routed = keyed.repartition(stray + 1, keyed[_BLOCK_KEY]).drop(_BLOCK_KEY)
    routed.write.option("maxRecordsPerFile", max(1, int(max_rows_per_file))).parquet(staging)
    listed = java_call(jvm_entry(spark).listDataFiles, spark._jsparkSession, staging)
    from pyspark.sql import DataFrame as PyDataFrame

    written = []
    for r in PyDataFrame(listed, spark).select("path", "size", "mtime").collect():
        match = _PART.search(r.path)
        if match is None:
            raise SkipstoneError(f"cannot tell the block of {r.path}: not a Spark part file")
        p = int(match.group(1))
        if p >= stray:
            raise SkipstoneError(f"rows were routed outside the blocks being written ({r.path}); nothing was committed")
        block = int(blocks[p])
        target = f"{root}/b{block}-{r.path.rsplit('/', 1)[1]}"
        move(spark, r.path, target)
        written.append(WrittenFile(target, int(r.size), int(r.mtime), block))
    return written


def move(spark: SparkSession, source: str, target: str) -> None:
    jvm = spark._jvm  # type: ignore[union-attr]
    src, dst = jvm.org.apache.hadoop.fs.Path(source), jvm.org.apache.hadoop.fs.Path(target)
    fs = src.getFileSystem(spark._jsparkSession.sessionState().newHadoopConf())
    if fs.exists(dst) or not fs.rename(src, dst):
        raise SkipstoneError(f"could not move {source} to {target}")
