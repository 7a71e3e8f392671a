"""append on real Spark: rows routed through the current tree into new files of their blocks,
indexed and committed; bad input refused by name; concurrent appends and optimizes lose no row."""
from __future__ import annotations

import threading

import pytest
from pyspark.sql import functions as F

import skipstone
from skipstone.errors import SkipstoneError
from skipstone.layout import KdTree
from tests.table.split_policy import SplitLargestBlock
from tests.table.table_copies import table_fixtures
from tests.table.table_data import as_multiset, batch, unindexed

ROWS = 2000


created, table = table_fixtures("append", lambda spark: batch(spark, 0, ROWS),
                                KdTree(block_rows=500, columns=["a"]))


def test_appended_rows_go_into_new_files_of_their_blocks(spark, table):
    before = table.current()
    result = table.append(batch(spark, -300, 300).union(batch(spark, 5000, 200)))
    after = table.current()
    assert (after.version, after.operation, result.rows) == (before.version + 1, "APPEND", 500)
    assert set(before.files) <= set(after.files)  # no file rewritten
    new = [f for f in after.files if f not in set(before.files)]
    assert len(new) == result.files_added and {f.block for f in new} <= set(after.tree.block_ids.tolist())
    assert sum(leaf.rows for leaf in after.tree.leaves) == ROWS + 500
    expected = batch(spark, -300, 300).union(batch(spark, 0, ROWS)).union(batch(spark, 5000, 200))
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(expected)
    # the new files are indexed: a query on the old range skips them
    assert spark.sql(f"SELECT count(*) FROM parquet.`{table.root}` WHERE a BETWEEN 100 AND 200").collect()[0][0] == 101
    stats = skipstone.last_query_stats(spark)
    assert unindexed(stats) == 0 and stats.files_skipped >= len(new)


def test_append_refuses_other_columns_naming_them(spark, table):
    with pytest.raises(SkipstoneError, match=r"column b \(bigint\) is missing"):
        table.append(spark.range(3).select(F.col("id").alias("a")))
    with pytest.raises(SkipstoneError, match="column a is string"):
        table.append(spark.range(3).select(F.col("id").cast("string").alias("a"), F.col("id").alias("b")))
    assert table.current().operation == "CREATE"


def test_appends_during_an_optimize_lose_no_row(spark, table):
    errors: list[BaseException] = []

    def run(action):
        try:
            action()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(lambda: table.append(batch(spark, 10_000, 300)),)),
               threading.Thread(target=run, args=(lambda: table.append(batch(spark, 20_000, 300)),)),
               threading.Thread(target=run, args=(lambda: table.optimize(SplitLargestBlock()),))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # appends retry on the new version; an optimize that lost to an append stops cleanly
    assert all(isinstance(e, SkipstoneError) and "was not committed" in str(e) for e in errors)
    expected = batch(spark, 0, ROWS).union(batch(spark, 10_000, 300)).union(batch(spark, 20_000, 300))
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(expected)
    operations = [r.operation for r in table.history().collect()]
    assert operations.count("APPEND") == 2
