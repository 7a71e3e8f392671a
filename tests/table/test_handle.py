"""A table handle is a thin view of the JVM's table object and keeps no state of its own: any
number of handles, and SQL, write the same table, and each reads the newest version every time."""
from __future__ import annotations

import pytest

from skipstone import Skipstone
from skipstone.layout import KdTree
from tests.table.split_policy import SplitLargestBlock
from tests.table.table_copies import table_fixtures
from tests.table.table_data import as_multiset, batch

ROWS = 600


created, table = table_fixtures("handles", lambda spark: batch(spark, 0, ROWS),
                                KdTree(block_rows=200, columns=["a"]))


def test_a_handle_holds_only_its_session_and_the_jvm_table(table):
    assert vars(table).keys() == {"_spark", "_jtable"}
    assert table._jtable.getClass().getName() == "io.skipstone.table.SkipstoneTable"
    assert not isinstance(table, Skipstone)  # a table is no dataset handle: it delegates what it supports


def test_two_handles_see_each_others_commits_at_once(spark, table):
    other = Skipstone.for_path(spark, table.root)
    before = table.current()
    other.append(batch(spark, ROWS, 50))
    assert table.version == other.version == before.version + 1
    assert sum(f.rows for f in table.current().files) == ROWS + 50
    table.set_properties({"owner": "sales"})
    assert other.properties()["owner"] == "sales"
    assert [r.version for r in other.history().collect()] == [r.version for r in table.history().collect()]


def test_a_handle_survives_the_table_being_written_by_sql(spark, table):
    table.append(batch(spark, ROWS, 50))  # a fragmented block for SQL's OPTIMIZE to compact
    spark.sql(f"ALTER TABLE parquet.`{table.root}` SET TBLPROPERTIES ('optimize.strategies' = 'compaction')")
    assert table.properties()["optimize.strategies"] == "compaction"
    metrics = spark.sql(f"OPTIMIZE parquet.`{table.root}`").collect()[0].metrics
    assert (metrics.version, metrics.strategy) == (table.version, "compaction")
    assert table.optimize() is None  # nothing fragmented is left after SQL's compaction
    table.append(batch(spark, ROWS + 50, 10))  # and it writes on top of SQL's version
    assert as_multiset(table.read()) == as_multiset(batch(spark, 0, ROWS + 60))


def test_a_policy_error_is_raised_as_the_policy_raised_it_and_nothing_is_committed(spark, table):
    class Failing:
        name = "Failing"

        def propose(self, tree, workload, sample):
            raise ZeroDivisionError("no blocks to divide")

    table.set_properties({"optimize.strategies": "layout"})
    before = table.version
    with pytest.raises(ZeroDivisionError, match="no blocks to divide"):
        table.optimize(Failing())
    assert table.version == before
    assert table.optimize(SplitLargestBlock()).strategy == "layout"  # the next policy commits

