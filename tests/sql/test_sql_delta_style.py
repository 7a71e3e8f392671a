"""SQL as a Delta Lake user types it, on real managed tables (docs/sql.md): ``OPTIMIZE t ZORDER BY``,
``DESCRIBE DETAIL``, and the metadata tables ``skipstone_files`` / ``skipstone_versions``."""
from __future__ import annotations

import json

import pytest
from pyspark.errors import IllegalArgumentException
from pyspark.sql import functions as F

from skipstone import Skipstone
from skipstone.layout import KdTree
from skipstone.table.sql_optimize import SqlOptimizeHandler
from tests.table.table_copies import copy_table
from tests.table.table_data import as_multiset

ROWS = 1200


def batch(spark, start, n):
    return spark.range(start, start + n).select(F.col("id").alias("a"), (F.col("id") % 7).alias("b"))


@pytest.fixture(scope="module")
def created(spark, tmp_path_factory):
    return Skipstone.create(spark, str(tmp_path_factory.mktemp("delta_style") / "t"), batch(spark, 0, ROWS),
                            layout=KdTree(block_rows=400, columns=["a"]))


@pytest.fixture
def table(spark, created, tmp_path):
    return copy_table(spark, created, tmp_path / "t")


@pytest.fixture
def without_python(spark):
    """The session as a JVM without a Python driver (spark-sql) sees it: no Python optimizer registered."""
    registry = spark._jvm.io.skipstone.table.PythonOptimizer
    registry.unregister()
    yield
    registry.register(SqlOptimizeHandler())


def parse(spark, sql: str):
    return spark._jsparkSession.sessionState().sqlParser().parsePlan(sql)


# -- OPTIMIZE t ZORDER BY (...) ------------------------------------------------------------------


def test_zorder_by_rewrites_the_table_as_layout_zorder_does(spark, table):
    metrics = spark.sql(f"OPTIMIZE parquet.`{table.root}` ZORDER BY (a, b)").collect()[0].metrics
    current = table.current()
    assert (metrics.version, metrics.strategy, metrics.rowsRewritten) == (current.version, "layout", ROWS)
    assert (current.layout["kind"], current.layout["columns"]) == ("curve", ["a", "b"])
    assert json.loads(table.properties()["layout.spec"])["kind"] == "ZOrder"
    assert table.history().collect()[-1].policy == "LAYOUT ZORDER"
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(batch(spark, 0, ROWS))


@pytest.mark.parametrize("written", ["ZORDER BY (a, b)", "zorder by a, b", "ZORDER BY (a,\n b) -- Delta's"])
def test_zorder_by_is_layout_zorder_with_or_without_parentheses(spark, written):
    layout = parse(spark, f"OPTIMIZE db.t {written}").layout().get()
    assert (layout.name(), layout.columns().mkString(",")) == ("zorder", "a,b")


def test_zorder_by_takes_the_columns_in_any_case_as_spark_does(spark, table):
    spark.sql(f"OPTIMIZE parquet.`{table.root}` ZORDER BY (B, A)").collect()
    assert table.current().layout["columns"] == ["b", "a"]


def test_zorder_by_a_column_the_table_lacks_names_it_and_commits_nothing(spark, table):
    before = table.version
    with pytest.raises(IllegalArgumentException,
                       match=r"ZORDER BY \(a, price, cost\): no layout column 'price', 'cost' \(the table's: a, b\)"):
        spark.sql(f"OPTIMIZE parquet.`{table.root}` ZORDER BY (a, price, cost)").collect()
    assert table.version == before


def test_zorder_by_a_column_named_twice_names_it(spark, table):
    with pytest.raises(IllegalArgumentException, match=r"names a more than once"):
        spark.sql(f"OPTIMIZE parquet.`{table.root}` ZORDER BY (a, b, A)").collect()


def test_a_column_the_table_lacks_is_named_even_without_python(spark, table, without_python):
    with pytest.raises(IllegalArgumentException, match=r"no layout column 'price'"):
        spark.sql(f"OPTIMIZE parquet.`{table.root}` ZORDER BY (price)").collect()


def test_deltas_where_clause_is_refused_with_the_reason(spark):
    with pytest.raises(IllegalArgumentException, match=r"OPTIMIZE: WHERE is not supported: a Skipstone table has no "
                                                       r"partitions"):
        parse(spark, "OPTIMIZE db.t WHERE day >= '2024-01-01' ZORDER BY (a)")
