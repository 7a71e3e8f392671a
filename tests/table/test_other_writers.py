"""Managed tables beside other writers: files replaced under an absorbed name, an automatic
optimize that fails after the append committed, reads of paths inside a table's root, and the
errors a user meets, each in the user's terms."""
from __future__ import annotations

import os
import shutil
import time
import warnings

import pytest
from pyspark.sql import functions as F

from skipstone import Skipstone
from skipstone.errors import SkipstoneError
from skipstone.layout import KdTree
from skipstone.table import failpoints
from tests.table.table_copies import copy_table, local_path
from tests.table.table_data import as_multiset

ROWS = 100
LAYOUT = KdTree(block_rows=50, columns=["a"])


def batch(spark, start, n):
    return spark.range(start, start + n).select(F.col("id").alias("a"), (F.col("id") % 7).alias("b"))


@pytest.fixture(scope="module")
def created(spark, tmp_path_factory):
    return Skipstone.create(spark, str(tmp_path_factory.mktemp("others") / "t"), batch(spark, 0, ROWS), layout=LAYOUT)


@pytest.fixture
def table(spark, created, tmp_path):
    t = copy_table(spark, created, tmp_path / "t")
    yield t
    failpoints.disarm_all(spark)


def rows_of(spark, table):
    return as_multiset(spark.read.parquet(table.root))


def export(spark, table, tmp_path, start, n, name="export.parquet"):
    """Another writer (re)writes ``name`` in the table's root: a new file, written elsewhere and moved in."""
    out = tmp_path / f"export-{start}-{n}"
    batch(spark, start, n).coalesce(1).write.parquet(str(out))
    target = os.path.join(local_path(table.root), name)
    if os.path.exists(target):
        os.remove(target)
    shutil.move(str(next(out.glob("part-*.parquet"))), target)


def test_a_file_replaced_under_an_absorbed_name_is_new_table_data(spark, table, tmp_path):
    export(spark, table, tmp_path, 1000, 10)
    assert table.optimize().strategy == "unindexed"
    time.sleep(0.01)
    export(spark, table, tmp_path, 2000, 20)  # the same name, new rows
    expected = as_multiset(batch(spark, 0, ROWS).union(batch(spark, 1000, 10)).union(batch(spark, 2000, 20)))
    assert rows_of(spark, table) == expected
    table.vacuum(retention_hours=0, force=True)  # never deletes the replacement as "absorbed"
    assert rows_of(spark, table) == expected
    assert table.optimize().strategy == "unindexed"  # and it is absorbed in its turn
    table.vacuum(retention_hours=0, force=True)
    assert rows_of(spark, table) == expected
    assert not os.path.exists(os.path.join(local_path(table.root), "export.parquet"))


def test_an_automatic_optimize_that_fails_does_not_fail_the_committed_append(spark, table):
    table.set_properties({"optimize.auto": "true", "optimize.strategies": "compaction"})
    failpoints.arm(spark, "optimize.compaction.afterWrite", error=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = table.append(batch(spark, ROWS, 40))
    assert result.rows == 40 and result.version == table.version
    assert "optimize.compaction.afterWrite" in result.optimize_error
    assert any("committed version" in str(w.message) for w in caught)
    expected = as_multiset(batch(spark, 0, ROWS + 40))
    assert rows_of(spark, table) == expected  # the batch once, the table readable
    assert table.optimize().strategy == "compaction"  # the next optimize completes
    assert rows_of(spark, table) == expected


def test_an_automatic_optimize_reports_what_it_committed(spark, table):
    table.set_properties({"optimize.auto": "true", "optimize.strategies": "compaction"})
    result = table.append(batch(spark, ROWS, 40))
    assert result.optimize is not None and result.optimize.strategy == "compaction" and result.optimize_error is None
    assert rows_of(spark, table) == as_multiset(batch(spark, 0, ROWS + 40))


def test_a_glob_inside_a_managed_root_is_refused(spark, table):
    table.append(batch(spark, ROWS, 40))
    table.set_properties({"optimize.strategies": "compaction"})
    table.optimize()  # replaced files stay on disk until a vacuum
    with pytest.raises(Exception, match="read the table's root"):
        spark.read.parquet(table.root + "/*.parquet").count()
    assert rows_of(spark, table) == as_multiset(batch(spark, 0, ROWS + 40))


def test_a_partitioned_write_into_a_managed_root_is_refused_clearly(spark, table):
    batch(spark, 5000, 30).write.partitionBy("b").mode("append").parquet(table.root)
    for query in (lambda: spark.read.parquet(table.root).count(),
                  lambda: spark.read.parquet(table.root).where("a > 10").collect()):
        with pytest.raises(Exception, match="has no partitions") as raised:
            query()
        assert "AssertionError" not in str(raised.value)


def test_optimize_blocked_by_an_incompatible_foreign_file_says_which(spark, table, tmp_path):
    out = tmp_path / "bad"
    spark.range(5).selectExpr("CAST(id AS STRING) AS a").coalesce(1).write.parquet(str(out))
    shutil.copy(next(out.glob("part-*.parquet")), os.path.join(local_path(table.root), "bad.parquet"))
    with pytest.raises(SkipstoneError, match="bad.parquet") as raised:
        table.optimize()
    assert "committed nothing" in str(raised.value) and "Move the files out" in str(raised.value)


def test_a_layout_naming_a_column_twice_is_refused(spark, table):
    with pytest.raises(Exception, match="names a more than once"):
        spark.sql(f"OPTIMIZE parquet.`{table.root}` LAYOUT KD BY (a, a)")


def test_sql_vacuum_under_the_retention_says_why_and_how(spark, table):
    with pytest.raises(Exception, match="RETAIN 0.0 HOURS.*under the table's") as raised:
        spark.sql(f"VACUUM parquet.`{table.root}` RETAIN 0 HOURS")
    assert "Py4JJavaError" not in type(raised.value).__name__


def test_lowering_the_retention_needs_an_explicit_opt_in(spark, table):
    with pytest.raises(Exception, match="vacuum.retentionCheck = false"):
        spark.sql(f"ALTER TABLE parquet.`{table.root}` SET TBLPROPERTIES ('vacuum.retentionHours' = '0')")
    with pytest.raises(SkipstoneError, match="vacuum.retentionCheck = false"):
        table.set_properties({"vacuum.retentionHours": "0"})
    table.append(batch(spark, ROWS, 10))
    table.set_properties({"optimize.strategies": "compaction"})
    table.optimize()
    assert spark.sql(f"VACUUM parquet.`{table.root}`").count() == 0  # the default retention: nothing is old enough
    spark.sql(f"ALTER TABLE parquet.`{table.root}` SET TBLPROPERTIES "
              "('vacuum.retentionCheck' = 'false', 'vacuum.retentionHours' = '0')")
    assert spark.sql(f"VACUUM parquet.`{table.root}`").count() > 0  # opted in: the replaced files go
    assert rows_of(spark, table) == as_multiset(batch(spark, 0, ROWS + 10))
