"""A skipping dataset on S3: plain Parquet objects, an index beside them (`_skipstone/` in the
same bucket), queries that skip; and an object rewritten in place, with the same size within
the same second (so the same modification time), is told apart by its ETag and read."""
from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import run_both_ways
from skipstone import MinMax, Skipstone, last_query_stats
from stores.s3_fixtures import *  # noqa: F403 - the S3 fixtures
from stores.s3_fixtures import requires_s3

pytestmark = requires_s3

FILES = 4
ROWS_PER_FILE = 100
VERIFY = "spark.skipstone.verifySkippedFiles"


def parquet_bytes(first: int) -> bytes:
    """A Parquet file of ROWS_PER_FILE rows from `first` on, of one size whatever `first` is."""
    ids = list(range(first, first + ROWS_PER_FILE))
    out = io.BytesIO()
    pq.write_table(pa.table({"id": pa.array(ids, pa.int64()), "v": pa.array([i % 10 for i in ids], pa.int64())}),
                   out, compression="none", use_dictionary=False)
    return out.getvalue()


def put_dataset(s3_server, bucket: str, prefix: str) -> str:
    for k in range(FILES):
        s3_server.client.put_object(Bucket=bucket, Key=f"{prefix}/part-{k}.parquet",
                                    Body=parquet_bytes(k * ROWS_PER_FILE))
    return f"s3a://{bucket}/{prefix}"


def ids_where(spark, root: str, condition: str) -> list[int]:
    return sorted(r.id for r in spark.sql(f"SELECT id FROM parquet.`{root}` WHERE {condition}").collect())


def test_an_indexed_dataset_on_s3_skips_and_answers_as_spark_does(spark, s3_server, bucket):
    root = put_dataset(s3_server, bucket, "plain")
    Skipstone.for_path(spark, root).build(MinMax("id"))
    listed = s3_server.client.list_objects_v2(Bucket=bucket, Prefix="plain/_skipstone/")
    assert listed["KeyCount"] > 0  # the metadata lives beside the data, in the same bucket
    rows, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{root}` WHERE id BETWEEN 120 AND 180")
    assert len(rows) == 61 and stats.files_skipped == FILES - 1


@pytest.mark.parametrize("verification", ["auto", "listing"])
def test_an_object_rewritten_in_place_within_the_second_is_read_not_skipped(spark, s3_server, bucket, verification):
    assert len(parquet_bytes(0)) == len(parquet_bytes(5000))  # the rewrite keeps the size
    prefix = f"rewritten-{verification}"
    s3_server.stop_clock()  # every object below gets the modification time of this second
    try:
        root = put_dataset(s3_server, bucket, prefix)
        Skipstone.for_path(spark, root).build(MinMax("id"))
        assert ids_where(spark, root, "id >= 5000") == []
        before = s3_server.client.head_object(Bucket=bucket, Key=f"{prefix}/part-1.parquet")
        s3_server.client.put_object(Bucket=bucket, Key=f"{prefix}/part-1.parquet", Body=parquet_bytes(5000))
        after = s3_server.client.head_object(Bucket=bucket, Key=f"{prefix}/part-1.parquet")
    finally:
        s3_server.run_clock()
    assert (after["ContentLength"], after["LastModified"]) == (before["ContentLength"], before["LastModified"])
    assert after["ETag"] != before["ETag"]
    spark.conf.set(VERIFY, verification)
    try:
        assert ids_where(spark, root, "id >= 5000") == list(range(5000, 5000 + ROWS_PER_FILE))
        stats = last_query_stats(spark)
    finally:
        spark.conf.unset(VERIFY)
    assert stats.files_skipped == FILES - 1  # the other files are still skipped


def test_a_dataframe_listed_before_the_rewrite_still_reads_it_under_the_default_check(spark, s3_server, bucket):
    """Its listing holds the old ETag; the default check asks the store, which has the new one."""
    s3_server.stop_clock()
    try:
        root = put_dataset(s3_server, bucket, "listed-before")
        Skipstone.for_path(spark, root).build(MinMax("id"))
        df = spark.read.parquet(root)
        assert df.where("id >= 5000").count() == 0  # lists, and skips every object
        s3_server.client.put_object(Bucket=bucket, Key="listed-before/part-2.parquet", Body=parquet_bytes(5000))
    finally:
        s3_server.run_clock()
    assert sorted(r.id for r in df.where("id >= 5000").collect()) == list(range(5000, 5000 + ROWS_PER_FILE))
    assert last_query_stats(spark).files_skipped == FILES - 1
