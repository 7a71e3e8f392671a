"""A table version is published on S3 by one conditional PUT (`If-None-Match: *`): of writers
racing for one version exactly one wins, and a store that cannot refuse the loser is refused
itself unless the session opts into single-writer mode (docs/object-stores.md)."""
from __future__ import annotations

import threading

import pytest
from botocore.exceptions import ClientError
from pyspark.sql import functions as F

from skipstone import Skipstone
from skipstone.errors import SkipstoneError
from skipstone.layout import KdTree
from skipstone.table import manifest
from stores.s3_fixtures import *  # noqa: F403 - the S3 fixtures
from stores.s3_fixtures import requests_during, requires_s3

pytestmark = requires_s3

SINGLE_WRITER = "spark.skipstone.tables.singleWriter"
LAYOUT = KdTree(block_rows=50, columns=["a"])


def rows(spark, start, n):
    return spark.range(start, start + n).select(F.col("id").alias("a"), (F.col("id") % 7).alias("b"))


def put_if_absent(spark, uri: str, content: str) -> bool:
    jvm = spark._jvm
    conf = spark._jsparkSession.sessionState().newHadoopConf()
    return jvm.io.skipstone.table.PutIfAbsent.write(conf, jvm.org.apache.hadoop.fs.Path(uri), content)


def test_the_server_refuses_a_second_conditional_put(s3_server, bucket):
    s3_server.client.put_object(Bucket=bucket, Key="once", Body=b"1", IfNoneMatch="*")
    with pytest.raises(ClientError, match="PreconditionFailed"):
        s3_server.client.put_object(Bucket=bucket, Key="once", Body=b"2", IfNoneMatch="*")
    assert s3_server.client.get_object(Bucket=bucket, Key="once")["Body"].read() == b"1"


def test_of_writers_racing_for_one_entry_exactly_one_wins(spark, s3_server, bucket):
    target = f"s3a://{bucket}/race/_skipstone/log/00000000000000000001.json"
    put_if_absent(spark, f"s3a://{bucket}/race/warm-up", "x")  # the store's probe runs before the race
    start = threading.Barrier(8)
    won: dict[int, bool] = {}

    def write(k: int) -> None:
        start.wait()
        won[k] = put_if_absent(spark, target, f"writer {k}")

    threads = [threading.Thread(target=write, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [k for k, w in won.items() if w]
    assert len(won) == 8 and len(winners) == 1
    body = s3_server.client.get_object(Bucket=bucket, Key="race/_skipstone/log/00000000000000000001.json")["Body"]
    assert body.read().decode() == f"writer {winners[0]}"  # the winner's entry, never overwritten


def test_a_commit_is_one_conditional_put_without_a_rename(spark, store_root):
    t = Skipstone.create(spark, store_root("one-put"), rows(spark, 0, 100), layout=LAYOUT)
    _, requests = requests_during(spark, t.root, lambda: manifest.commit(
        spark, t.root, 1, "SET PROPERTIES", [], properties={"owner": "ops"}))
    assert requests.get("object_put_request") == 1
    assert "object_copy_requests" not in requests and "object_delete_request" not in requests


def test_a_store_that_ignores_the_condition_refuses_to_commit(spark, s3_server):
    bucket = s3_server.new_bucket("ignores-conditions")
    root = f"s3a://{bucket}/t"
    with pytest.raises(SkipstoneError, match=SINGLE_WRITER):
        Skipstone.create(spark, root, rows(spark, 0, 100), layout=LAYOUT)
    listed = s3_server.client.list_objects_v2(Bucket=bucket, Prefix="t/_skipstone/log/").get("Contents", [])
    assert [o["Key"] for o in listed if not o["Key"].endswith("/")] == []  # nothing committed (S3A may leave a marker)


def test_without_conditional_writes_only_single_writer_mode_commits(spark, s3_server):
    bucket = s3_server.new_bucket("no-conditions")
    # the bucket's own S3A setting, read when its file system is first made (below)
    spark._jsc.hadoopConfiguration().set(f"fs.s3a.bucket.{bucket}.create.conditional.enabled", "false")
    root = f"s3a://{bucket}/t"
    with pytest.raises(SkipstoneError, match=SINGLE_WRITER):
        Skipstone.create(spark, root, rows(spark, 0, 100), layout=LAYOUT)
    spark.conf.set(SINGLE_WRITER, "true")
    try:
        t = Skipstone.create(spark, root, rows(spark, 0, 100), layout=LAYOUT)
        t.append(rows(spark, 100, 50))
    finally:
        spark.conf.unset(SINGLE_WRITER)
    assert t.version == 2
    assert sorted(r.a for r in spark.read.format("skipstone").load(root).collect()) == list(range(150))
