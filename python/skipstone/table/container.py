"""Places in a table's directory and its container (`<root>/_skipstone/`) that Python writes to."""
from __future__ import annotations

import re
import threading
import uuid
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np

from skipstone.layout.schema import LayoutData, Schema

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# The schema summary a create writes (io.skipstone.table.Create): Spark infers a directory's
# schema from it, never reads it as data.
SCHEMA_SUMMARY = "_common_metadata"


def write_sample(spark: SparkSession, root: str, sample: LayoutData) -> str:
    """Stores the encoded layout sample (one double column per layout column, in the layout
    schema's order); returns its path relative to the root. Optimizations plan on it: rows
    move between blocks but never change, so the sample stays a sample of the table."""
    import pyarrow as pa
    from pyspark.sql.types import DoubleType, StructField, StructType

    relative_dir = f"_skipstone/sample/{uuid.uuid4().hex}"
    table = pa.table({f"c{i}": sample.values[:, i] for i in range(sample.schema.width)})
    # the schema given: a table of no rows has an empty sample, from which Spark infers nothing
    schema = StructType([StructField(f"c{i}", DoubleType()) for i in range(sample.schema.width)])
    spark.createDataFrame(table.to_pandas(), schema).coalesce(1).write.parquet(f"{root}/{relative_dir}")
    return relative_dir


# Samples are immutable (a new one gets a new directory), so an optimize loop reads each once.
_SAMPLES: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_SAMPLES_KEPT = 4
_SAMPLES_LOCK = threading.Lock()


def read_sample(spark: SparkSession, root: str, relative_dir: str, schema: Schema) -> LayoutData:
    key = (root, relative_dir)
    with _SAMPLES_LOCK:
        values = _SAMPLES.get(key)
        if values is not None:
            _SAMPLES.move_to_end(key)
    if values is None or values.shape[1] != schema.width:
        table = spark.read.parquet(f"{root}/{relative_dir}").toArrow()
        values = np.column_stack([table.column(f"c{i}").to_numpy(zero_copy_only=False) for i in range(schema.width)]) \
            if table.num_rows else np.empty((0, schema.width))
        values = values.astype(np.float64)
        values.setflags(write=False)  # shared by every reader of this sample
        with _SAMPLES_LOCK:
            _SAMPLES[key] = values
            while len(_SAMPLES) > _SAMPLES_KEPT:
                _SAMPLES.popitem(last=False)
    return LayoutData(schema, values)


def delete(spark: SparkSession, path: str) -> None:
    """Delete a file or a directory tree (a no-op if it is gone)."""
    jvm = spark._jvm  # type: ignore[union-attr]
    p = jvm.org.apache.hadoop.fs.Path(path)
    p.getFileSystem(spark._jsparkSession.sessionState().newHadoopConf()).delete(p, True)


# What Skipstone writes into a table's root: its data files and its container.
_SKIPSTONE_FILE = re.compile(r"b\d+-")


def has_files_besides_leftovers(spark: SparkSession, path: str) -> bool:
    """True if ``path`` holds anything but what a create that died before committing left
    (its container, without a log, data files Skipstone named and the schema summary): such a
    directory may be created again; the leftovers are never read and a vacuum deletes them."""
    jvm = spark._jvm  # type: ignore[union-attr]
    p = jvm.org.apache.hadoop.fs.Path(path)
    fs = p.getFileSystem(spark._jsparkSession.sessionState().newHadoopConf())
    if not fs.exists(p):
        return False
    names = [s.getPath().getName() for s in fs.listStatus(p)]
    return any(n not in ("_skipstone", SCHEMA_SUMMARY) and not _SKIPSTONE_FILE.match(n) for n in names)
