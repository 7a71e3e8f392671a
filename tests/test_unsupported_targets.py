"""Targets Skipstone does not index (views) are refused up front, in the user's terms."""
from __future__ import annotations

import pyarrow as pa
import pytest
from pyspark.errors import IllegalArgumentException

from datasets import write_tables
from skipstone import MinMax, Skipstone, SkipstoneError, last_query_stats

SAYS_WHAT_TO_DO = "Skipstone indexes file-based tables and directories: index the table or path the view reads"


@pytest.fixture(scope="module")
def root(spark, tmp_path_factory) -> str:
    path = write_tables(str(tmp_path_factory.mktemp("views") / "t"),
                        [pa.table({"id": pa.array(range(i * 10, i * 10 + 10), pa.int64())}) for i in range(2)])
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW recent AS SELECT * FROM parquet.`{path}` WHERE id > 5")
    spark.sql(f"CREATE TABLE IF NOT EXISTS ids USING parquet LOCATION '{path}'")
    spark.sql("CREATE OR REPLACE VIEW ids_view AS SELECT id FROM ids WHERE id > 5")
    yield path
    spark.sql("DROP VIEW IF EXISTS ids_view")
    spark.sql("DROP TABLE IF EXISTS ids")


def test_for_table_on_a_temporary_view_with_a_where_says_to_index_what_the_view_reads(spark, root):
    with pytest.raises(SkipstoneError, match=f"recent is a temporary view; {SAYS_WHAT_TO_DO}"):
        Skipstone.for_table(spark, "recent").build(MinMax("id"))


def test_for_table_on_a_catalog_view_says_to_index_what_the_view_reads(spark, root):
    with pytest.raises(SkipstoneError, match=f"ids_view is a view; {SAYS_WHAT_TO_DO}"):
        Skipstone.for_table(spark, "ids_view")


def test_create_skipping_index_on_a_temporary_view_says_to_index_what_the_view_reads(spark, root):
    with pytest.raises(IllegalArgumentException, match=f"recent is a temporary view; {SAYS_WHAT_TO_DO}"):
        spark.sql("CREATE SKIPPING INDEX ON recent (MINMAX(id))").collect()


def test_create_skipping_index_on_a_catalog_view_says_to_index_what_the_view_reads(spark, root):
    with pytest.raises(IllegalArgumentException, match=f"ids_view is a view; {SAYS_WHAT_TO_DO}"):
        spark.sql("CREATE SKIPPING INDEX ON ids_view (MINMAX(id))").collect()


def test_the_table_a_view_reads_can_be_indexed(spark, root):
    Skipstone.for_table(spark, "ids").build(MinMax("id"))
    spark.sql("SELECT * FROM ids WHERE id = 15").collect()
    assert last_query_stats(spark).files_skipped == 1
