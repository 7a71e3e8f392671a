"""SQL as a Delta Lake user types it, on real managed tables (docs/sql.md): ``OPTIMIZE t ZORDER BY``,
``DESCRIBE DETAIL``, and the metadata tables ``skipstone_files`` / ``skipstone_versions``."""
from __future__ import annotations

import json

import pytest
from pyspark.errors import IllegalArgumentException

from skipstone.layout import KdTree
from tests.table.table_copies import table_fixtures
from tests.table.table_data import as_multiset, batch

ROWS = 1200


created, table = table_fixtures("delta_style", lambda spark: batch(spark, 0, ROWS),
                                KdTree(block_rows=400, columns=["a"]))


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


# -- DESCRIBE DETAIL ---------------------------------------------------------------------------------


def test_describe_detail_is_one_row_about_the_newest_version(spark, table):
    table.append(batch(spark, ROWS, 100))
    current, history = table.current(), table.history().collect()
    detail = spark.sql(f"DESCRIBE DETAIL parquet.`{table.root}`").collect()
    assert len(detail) == 1
    d = detail[0]
    assert (d.format, d.name, d.location, d.version) == ("skipstone", None, table.root, current.version)
    assert (d.numFiles, d.sizeInBytes, d.numRows) == (len(current.files), sum(f.size for f in current.files), ROWS + 100)
    assert (d.createdAt, d.lastModified) == (history[0].timestamp, history[-1].timestamp)
    assert d.metadataVersion == current.metadata_version


def test_describe_detail_names_the_layout_and_its_columns(spark, table):
    before = spark.sql(f"DESC DETAIL parquet.`{table.root}`").collect()[0]
    assert (before.layout, before.layoutColumns) == ("KdTree", ["a"])
    spark.sql(f"OPTIMIZE parquet.`{table.root}` ZORDER BY (b, a)").collect()
    after = spark.sql(f"DESCRIBE DETAIL parquet.`{table.root}`").collect()[0]
    assert (after.layout, after.layoutColumns) == ("ZOrder", ["b", "a"])


def test_describe_detail_shows_the_properties_as_a_map(spark, table):
    spark.sql(f"ALTER TABLE parquet.`{table.root}` SET TBLPROPERTIES ('vacuum.retentionHours' = '240', "
              "'owner' = 'sales team')").collect()
    properties = spark.sql(f"DESCRIBE DETAIL parquet.`{table.root}`").select("properties").collect()[0].properties
    assert (properties["vacuum.retentionHours"], properties["owner"], properties["format"]) == ("240", "sales team", "parquet")
    assert "schema" not in properties  # the table's schema is DESCRIBE's, not one long JSON property


def test_describe_detail_of_a_catalog_table_names_it(spark, table):
    spark.sql(f"CREATE TABLE detail_sales USING parquet LOCATION '{table.root}'")
    try:
        d = spark.sql("DESCRIBE DETAIL detail_sales").collect()[0]
        assert (d.name, d.location, d.version) == ("detail_sales", table.root, table.version)
    finally:
        spark.sql("DROP TABLE detail_sales")


def test_describe_detail_of_a_directory_that_is_no_managed_table_says_so(spark, tmp_path):
    batch(spark, 0, 10).write.parquet(str(tmp_path / "plain"))
    with pytest.raises(IllegalArgumentException, match=r"DESCRIBE DETAIL: parquet.`.*plain` is not a Skipstone table"):
        spark.sql(f"DESCRIBE DETAIL parquet.`{tmp_path / 'plain'}`").collect()


def test_describe_detail_alone_still_describes_a_table_named_detail(spark):
    spark.sql("CREATE TABLE detail (x INT) USING parquet")
    try:
        assert [r.col_name for r in spark.sql("DESCRIBE detail").collect()] == ["x"]
    finally:
        spark.sql("DROP TABLE detail")


# -- skipstone_files / skipstone_versions ---------------------------------------------------------------


def test_skipstone_files_lists_the_newest_versions_files_with_the_version_that_added_each(spark, table):
    created = {f.path for f in table.current().files}
    table.append(batch(spark, ROWS, 100))
    current = table.current()
    rows = spark.sql(f"SELECT * FROM skipstone_files('{table.root}')").collect()
    assert sorted((r.path, r.size, r.rows, r.block) for r in rows) == \
        sorted((f.path, f.size, f.rows, f.block) for f in current.files)
    assert {r.path: r.version_added for r in rows} == {f.path: 1 if f.path in created else 2 for f in current.files}
    assert {r.version for r in rows} == {current.version}


def test_skipstone_files_can_be_filtered_and_aggregated_like_any_table(spark, table):
    table.append(batch(spark, ROWS, 100))
    added = spark.sql(f"SELECT sum(rows) AS rows FROM skipstone_files('{table.root}') WHERE version_added = 2")
    assert added.collect()[0].rows == 100


def test_skipstone_files_of_an_earlier_version_lists_that_versions_files(spark, table):
    first = {f.path for f in table.current().files}
    spark.sql(f"OPTIMIZE parquet.`{table.root}` ZORDER BY (a, b)").collect()
    rows = spark.sql(f"SELECT path, version FROM skipstone_files('{table.root}', 1)").collect()
    assert {r.path for r in rows} == first and {r.version for r in rows} == {1}


def test_skipstone_files_of_a_version_the_log_lacks_names_the_versions_it_holds(spark, table):
    with pytest.raises(IllegalArgumentException, match=r"has no version 9 \(its log holds versions 1\)"):
        spark.sql(f"SELECT * FROM skipstone_files('{table.root}', 9)").collect()


def test_skipstone_versions_says_what_each_version_changed(spark, table):
    table.append(batch(spark, ROWS, 100))
    spark.sql(f"OPTIMIZE parquet.`{table.root}` ZORDER BY (a)").collect()
    history = table.history().collect()
    versions = spark.sql(f"SELECT * FROM skipstone_versions('{table.root}') ORDER BY version").collect()
    assert [(v.version, v.timestamp, v.operation, v.files, v.rows) for v in versions] == \
        [(h.version, h.timestamp, h.operation, h.files, h.rows) for h in history]
    create, append, optimize = versions
    assert (create.files_added, create.files_removed, create.rows_added) == (create.files, 0, ROWS)
    assert (append.files_added, append.files_removed, append.rows_added) == (append.files - create.files, 0, 100)
    assert (optimize.files_removed, optimize.rows_removed, optimize.rows_added) == (append.files, ROWS + 100, ROWS + 100)
    assert optimize.bytes_removed == append.bytes and optimize.bytes_added == optimize.bytes


def test_skipstone_versions_can_be_filtered(spark, table):
    table.append(batch(spark, ROWS, 100))
    rows = spark.sql(f"SELECT version FROM skipstone_versions('{table.root}') WHERE operation = 'APPEND'").collect()
    assert [r.version for r in rows] == [2]


def test_the_table_functions_refuse_a_directory_that_is_no_managed_table(spark, tmp_path):
    batch(spark, 0, 10).write.parquet(str(tmp_path / "plain"))
    with pytest.raises(IllegalArgumentException, match=r"skipstone_versions\('.*plain'\): .*plain is not a Skipstone table"):
        spark.sql(f"SELECT * FROM skipstone_versions('{tmp_path / 'plain'}')").collect()


@pytest.mark.parametrize("call, message", [
    ("skipstone_files()", r"skipstone_files: takes 1 to 2 arguments, got 0"),
    ("skipstone_versions('/t', 1)", r"skipstone_versions: takes 1 argument, got 2"),
    ("skipstone_files('/t', 'one')", r"argument 2 \('one'\) must be a version number"),
    ("skipstone_files(42)", r"argument 1 \(42\) must be the table's root path"),
])
def test_the_table_functions_name_a_wrong_argument(spark, call, message):
    with pytest.raises(IllegalArgumentException, match=message):
        spark.sql(f"SELECT * FROM {call}").collect()
