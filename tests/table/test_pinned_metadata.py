"""A query on a managed table skips with the metadata version its table version records, not
with whatever metadata version is newest."""
from __future__ import annotations

import skipstone
from skipstone import MinMax, Skipstone
from skipstone.layout import KdTree
from skipstone.table.indexing import FileSetIndex
from tests.table.table_copies import table_fixtures
from tests.table.table_data import batch

ROWS = 2000
QUERY = "SELECT count(*) FROM parquet.`{root}` WHERE a < 200"


created, table = table_fixtures("pinned", lambda spark: batch(spark, 0, ROWS), KdTree(block_rows=250, columns=["a"]))


def test_a_newer_uncommitted_metadata_version_does_not_change_what_a_query_skips(spark, table):
    pinned = table.current().metadata_version
    # Publish metadata for the same files that knows only column b: not recorded by any version.
    v = table.current()
    other = FileSetIndex(spark, table.root, [(v.absolute(f), f.size, f.modification_time) for f in v.files])
    other.build(MinMax("b"))
    assert other._current()[0] > pinned

    assert spark.sql(QUERY.format(root=table.root)).collect()[0][0] == 200
    stats = skipstone.last_query_stats(spark)
    assert stats.files_skipped >= stats.files_total // 2  # MinMax(a) of the pinned version still skips


def test_build_commits_a_version_that_records_the_new_metadata(spark, table):
    before = table.current()
    table.build(MinMax("a"), MinMax("b"))
    after = table.current()
    assert after.version == before.version + 1 and after.operation == "INDEX"
    assert after.metadata_version == Skipstone(spark, table.root, "parquet")._current()[0] > before.metadata_version
    assert after.files == before.files
    assert spark.sql(QUERY.format(root=table.root)).collect()[0][0] == 200
    assert skipstone.last_query_stats(spark).files_skipped > 0
