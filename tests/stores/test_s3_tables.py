"""Managed tables on S3 (the local S3 server, through S3A).

The store-agnostic suite (`stores/table_suite.py`: create, append, compaction, `LAYOUT KD BY`,
vacuum, writers racing in threads and in processes, writers killed half way) runs here on S3,
with `store_root` giving fresh `s3a://` roots. The tests below are S3's own: what the store
holds, seen through S3's API rather than Hadoop's, and what a vacuum costs in requests."""
from __future__ import annotations

from collections import Counter

from pyspark.sql import functions as F

from skipstone import Skipstone
from skipstone.layout import KdTree
from stores.s3_fixtures import *  # noqa: F403 - the S3 fixtures, store_root among them
from stores.s3_fixtures import requests_during, requires_s3

try:  # the suite every store runs, with this module's spark and store_root
    from stores.table_suite import *  # noqa: F403
except ModuleNotFoundError as missing:
    if missing.name != "stores.table_suite":
        raise

pytestmark = requires_s3

S3_ROWS = 600


def pairs(spark, start, n):
    return spark.range(start, start + n).select(F.col("id").alias("a"), (F.col("id") % 7).alias("b"))


def pairs_read(table) -> Counter:
    return Counter(tuple(r) for r in table.read().select("a", "b").collect())


def data_objects(s3_server, root: str) -> set[str]:
    """The names of the data files directly under the table's root (not `_common_metadata`), as S3 lists them."""
    bucket, _, prefix = root.removeprefix("s3a://").partition("/")
    pages = s3_server.client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix + "/", Delimiter="/")
    names = {o["Key"].rsplit("/", 1)[1] for page in pages for o in page.get("Contents", [])}
    return {n for n in names if n.endswith(".parquet") and not n.startswith(("_", "."))}


def test_a_table_is_plain_objects_in_its_bucket_and_its_log_holds_no_temporary_one(spark, store_root, s3_server):
    t = Skipstone.create(spark, store_root("objects"), pairs(spark, 0, S3_ROWS), layout=KdTree(block_rows=200, columns=["a"]))
    t.append(pairs(spark, S3_ROWS, 100))
    bucket, _, prefix = t.root.removeprefix("s3a://").partition("/")
    assert data_objects(s3_server, t.root) == {f.path for f in t.current().files}
    log = s3_server.client.list_objects_v2(Bucket=bucket, Prefix=f"{prefix}/_skipstone/log/")["Contents"]
    assert [o["Key"].rsplit("/", 1)[1] for o in log] == ["00000000000000000001.json", "00000000000000000002.json"]
    assert pairs_read(t) == Counter(tuple(r) for r in pairs(spark, 0, S3_ROWS + 100).collect())


def test_vacuum_deletes_what_no_version_lists_with_requests_that_do_not_grow_with_it(spark, store_root, s3_server):
    t = Skipstone.create(spark, store_root("vacuumed"), pairs(spark, 0, S3_ROWS), layout=KdTree(block_rows=20, columns=["a"]))
    first = {f.path for f in t.current().files}
    spark.sql(f"OPTIMIZE parquet.`{t.root}` LAYOUT KD BY (b, a)")
    spark.sql(f"OPTIMIZE parquet.`{t.root}` LAYOUT KD BY (a)")
    superseded = data_objects(s3_server, t.root) - {f.path for f in t.current().files}
    assert first <= superseded and len(superseded) >= 40
    deleted, requests = requests_during(spark, t.root, lambda: t.vacuum(retention_hours=0, force=True).collect())
    assert {r.path.rsplit("/", 1)[1] for r in deleted if r.kind == "data"} == superseded
    assert data_objects(s3_server, t.root) == {f.path for f in t.current().files}
    assert pairs_read(t) == Counter(tuple(r) for r in pairs(spark, 0, S3_ROWS).collect())
    # the deleted files' statuses come from one listing of the root and they go in bulk deletes:
    # fewer HEAD, LIST and DELETE requests than files (a plain delete costs one of each per file)
    for counter in ("object_metadata_request", "object_list_request", "object_delete_request"):
        assert requests.get(counter, 0) < len(superseded), requests
    assert requests.get("object_bulk_delete_request", 0) >= 1
