"""Shared fixtures: one real local SparkSession per test module, with Skipstone enabled."""
from __future__ import annotations

import json
import math
import os
import sys
from typing import Any, Iterator

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))

import skipstone  # noqa: E402


# `make test-catalog-store` runs the skipping suite with the catalog-table metadata store as the
# sessions' default (docs/metadata.md, "Metadata stores"): SKIPSTONE_TEST_CONF sets it.
CATALOG_STORE = json.loads(os.environ.get("SKIPSTONE_TEST_CONF", "{}")).get(
    "spark.skipstone.metadataStore", "files").startswith("catalog")


def pytest_collection_modifyitems(config, items):
    if CATALOG_STORE:
        skip = pytest.mark.skip(reason="needs the Parquet-file store (its directories, or metadata another application "
                                       "reads); the suite runs with the catalog store")
        for item in items:
            if "files_store" in item.keywords:
                item.add_marker(skip)


def metadata_table_dir(spark: Any, root: str) -> str:
    """The directory of the Parquet files of the dataset's current metadata version, in whichever store."""
    from skipstone import Skipstone

    current = Skipstone.for_path(spark, root)._current()
    assert current is not None, f"{root} has no Skipstone metadata"
    return current[1]


@pytest.fixture(scope="session")
def spark_context_session(tmp_path_factory):
    from pyspark.sql import SparkSession

    # catalog tables (CREATE TABLE ... USING skipstone) go to a scratch warehouse, never the checkout
    warehouse = tmp_path_factory.mktemp("warehouse")
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("skipstone-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "2g")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", str(warehouse))
    )
    # Suites run beside other connectors or stores (make test-stores) start this process with
    # their Spark settings as a JSON object: their jars and extensions join Skipstone's.
    for key, value in json.loads(os.environ.get("SKIPSTONE_TEST_CONF", "{}")).items():
        builder = builder.config(key, value)
    spark = skipstone.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    yield spark
    spark.stop()


@pytest.fixture(scope="module")
def spark(spark_context_session) -> Iterator[Any]:
    """A fresh SparkSession per module (own conf and views) over the shared SparkContext."""
    session = spark_context_session.newSession()
    session.conf.set("spark.skipstone.metadataCacheTtlSeconds", "0")
    make_active(session)
    yield session


def make_active(session: Any) -> None:
    """The module's session is the active one, as a user's only session is: builds look up
    UDFs and check rules there (pyspark's own createDataFrame activates a session this way)."""
    from pyspark.sql import SparkSession

    SparkSession._activeSession = session
    SparkSession._get_j_spark_session_class(session._jvm).setActiveSession(session._jsparkSession)


def normalized(rows: list[Any]) -> list[tuple[Any, ...]]:
    """Rows in a canonical order, NaN made comparable (NaN != NaN in Python)."""
    def cell(v: Any) -> Any:
        return "NaN" if isinstance(v, float) and math.isnan(v) else v
    return sorted((tuple(cell(v) for v in r) for r in rows), key=repr)


def only_dataset(stats: skipstone.QueryStats) -> skipstone.DatasetStats:
    """The stats of the one dataset a query read."""
    assert len(stats.per_dataset) == 1
    return stats.per_dataset[0]


def run_both_ways(spark: Any, sql: str, parquet_pushdown: bool = True) -> tuple[list[tuple[Any, ...]], skipstone.QueryStats]:
    """Run ``sql`` without any skipping (reference) and with Skipstone; assert equal results.

    The reference also turns Parquet row-group pushdown off: Parquet footers omit NaN from
    min/max, which makes Spark's own pushdown drop NaN rows of `x > c`. Pass
    ``parquet_pushdown=False`` to keep it off with Skipstone too, for data where Spark's
    pushdown itself is wrong (it drops row groups of -0.0 for `x = 0.0`).
    """
    spark.conf.set("spark.skipstone.enabled", "false")
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    try:
        expected = normalized(spark.sql(sql).collect())
    finally:
        spark.conf.set("spark.skipstone.enabled", "true")
        spark.conf.set("spark.sql.parquet.filterPushdown", str(parquet_pushdown).lower())
    try:
        actual = normalized(spark.sql(sql).collect())
        stats = skipstone.last_query_stats(spark)
    finally:
        spark.conf.set("spark.sql.parquet.filterPushdown", "true")
    assert actual == expected, f"results differ with skipping on for: {sql}"
    return actual, stats


def run_df_both_ways(spark: Any, make_df: Any) -> tuple[list[tuple[Any, ...]], skipstone.QueryStats]:
    """``make_df()`` (a DataFrame, made anew each time) with skipping off (reference) and on;
    the rows must be equal. Returns them and the stats of the run with skipping on."""
    spark.conf.set("spark.skipstone.enabled", "false")
    try:
        expected = normalized(make_df().collect())
    finally:
        spark.conf.set("spark.skipstone.enabled", "true")
    actual = normalized(make_df().collect())
    assert actual == expected
    return actual, skipstone.last_query_stats(spark)


@pytest.fixture
def without_python(spark):
    """The session as a JVM without a Python driver (spark-sql, JDBC) sees it: no Python optimizer registered."""
    from skipstone.table.sql_optimize import SqlOptimizeHandler

    registry = spark._jvm.io.skipstone.table.PythonOptimizer
    registry.unregister()
    yield
    registry.register(SqlOptimizeHandler())
