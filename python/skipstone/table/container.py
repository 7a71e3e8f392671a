"""Places in a table's directory and its container (`<root>/_skipstone/`) that Python writes to."""
from __future__ import annotations

import re
import time
import uuid
from typing import TYPE_CHECKING

import numpy as np

from skipstone.layout.schema import LayoutData, Schema

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def new_staging_dir(root: str, operation: str) -> str:
    """A fresh directory in the container for the files of one operation before they move into
    the table: a writer owns it alone, and plain readers never list it (`_` prefix)."""
    return f"{root}/_skipstone/staging/{operation.lower()}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:12]}"


def relative(root: str, path: str) -> str:
    prefix = root.rstrip("/") + "/"
    if not path.startswith(prefix):
        raise ValueError(f"{path} is not inside the table {root}")
    return path[len(prefix):]


def write_sample(spark: SparkSession, root: str, sample: LayoutData) -> str:
    """Stores the encoded layout sample (one double column per layout column, in the layout
    schema's order); returns its path relative to the root. Optimizations plan on it: rows
    move between blocks but never change, so the sample stays a sample of the table."""
    import pyarrow as pa

    relative_dir = f"_skipstone/sample/{uuid.uuid4().hex}"
    table = pa.table({f"c{i}": sample.values[:, i] for i in range(sample.schema.width)})
    spark.createDataFrame(table.to_pandas()).coalesce(1).write.parquet(f"{root}/{relative_dir}")
    return relative_dir


def read_sample(spark: SparkSession, root: str, relative_dir: str, schema: Schema) -> LayoutData:
    table = spark.read.parquet(f"{root}/{relative_dir}").toArrow()
    values = np.column_stack([table.column(f"c{i}").to_numpy(zero_copy_only=False) for i in range(schema.width)]) \
        if table.num_rows else np.empty((0, schema.width))
    return LayoutData(schema, values.astype(np.float64))


def delete(spark: SparkSession, path: str) -> None:
    """Delete a file or a directory tree (a no-op if it is gone)."""
    jvm = spark._jvm  # type: ignore[union-attr]
    p = jvm.org.apache.hadoop.fs.Path(path)
    p.getFileSystem(spark._jsparkSession.sessionState().newHadoopConf()).delete(p, True)


# What Skipstone writes into a table's root: its data files and its container.
_SKIPSTONE_FILE = re.compile(r"b\d+-")


def has_files_besides_leftovers(spark: SparkSession, path: str) -> bool:
    """True if ``path`` holds anything but what a create that died before committing left
    (its container, without a log, and data files Skipstone named): such a directory may be
    created again; the leftovers are never read and a vacuum deletes them."""
    jvm = spark._jvm  # type: ignore[union-attr]
    p = jvm.org.apache.hadoop.fs.Path(path)
    fs = p.getFileSystem(spark._jsparkSession.sessionState().newHadoopConf())
    if not fs.exists(p):
        return False
    names = [s.getPath().getName() for s in fs.listStatus(p)]
    return any(n != "_skipstone" and not _SKIPSTONE_FILE.match(n) for n in names)
