"""A table's root holds `_common_metadata`, a Parquet file of no rows with the table's schema:
readers that do not give a schema infer it from there, never from a data file a vacuum may be
deleting, and a table of no rows can be read by plain Spark at all."""
from __future__ import annotations

import os

import pytest

from skipstone import Skipstone
from skipstone.layout import KdTree
from tests.table.table_copies import local_path
from tests.table.table_data import as_multiset



def fields(schema):
    """Names and types: file sources read every column as nullable."""
    return [(f.name, f.dataType) for f in schema]


@pytest.fixture(scope="module")
def source(spark):
    return spark.sql("SELECT id AS a, CAST(id % 13 AS STRING) AS s, DATE_ADD(DATE'2024-01-01', CAST(id % 300 AS INT)) AS d, "
                     "CAST(id / 7 AS DECIMAL(12,3)) AS x FROM range(3000)")


def test_create_writes_the_schema_summary_and_plain_spark_infers_the_schema_from_it(spark, source, tmp_path):
    t = Skipstone.create(spark, str(tmp_path / "t"), source, layout=KdTree(block_rows=500))
    root = local_path(t.root)
    assert os.path.isfile(os.path.join(root, "_common_metadata"))
    # Every data file made unreadable: inference must not need any of them.
    data = [n for n in os.listdir(root) if n.startswith("b")]
    saved = {n: open(os.path.join(root, n), "rb").read() for n in data}
    try:
        for n in data:
            with open(os.path.join(root, n), "wb") as f:
                f.write(b"not parquet")
        spark.conf.set("spark.skipstone.enabled", "false")
        assert fields(spark.read.parquet(t.root).schema) == fields(source.schema)
    finally:
        spark.conf.set("spark.skipstone.enabled", "true")
        for n, content in saved.items():
            with open(os.path.join(root, n), "wb") as f:
                f.write(content)
    # the summary is not data: plain Spark and the extension read the same rows
    assert as_multiset(spark.read.parquet(t.root)) == as_multiset(source)


def test_a_table_of_no_rows_is_readable_by_plain_spark(spark, source, tmp_path):
    t = Skipstone.create(spark, str(tmp_path / "empty"), source.limit(0), layout=KdTree(block_rows=500))
    for enabled in ("false", "true"):
        spark.conf.set("spark.skipstone.enabled", enabled)
        try:
            df = spark.read.parquet(t.root)
            assert fields(df.schema) == fields(source.schema) and df.count() == 0
        finally:
            spark.conf.set("spark.skipstone.enabled", "true")


def test_optimize_append_and_vacuum_leave_the_summary_alone(spark, source, tmp_path):
    t = Skipstone.create(spark, str(tmp_path / "kept"), source, layout=KdTree(block_rows=500))
    t.append(source.limit(100))
    t.optimize()  # a compaction of the blocks the append spread
    t.vacuum(retention_hours=0, force=True)
    assert os.path.isfile(os.path.join(local_path(t.root), "_common_metadata"))
    assert t.current().version == 3 and spark.read.parquet(t.root).count() == 3100
    assert not t.files().where("path LIKE '%_common_metadata%'").count()
