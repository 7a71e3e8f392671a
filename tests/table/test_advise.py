"""``t.advise()`` on a managed table: per column its logged queries filter on, the indexes that
cover it and what to build."""
from __future__ import annotations

import pytest
from pyspark.sql import functions as F

from skipstone import Skipstone, ValueList
from skipstone.layout import KdTree


@pytest.fixture
def table(spark, tmp_path):
    """a clustered (the layout cuts on it), u with 3,000 values spread over every block."""
    df = spark.range(6000).select(F.col("id").alias("a"), (F.col("id") * 7919 % 3000).alias("u"))
    return Skipstone.create(spark, str(tmp_path / "t"), df, layout=KdTree(block_rows=1000, columns=["a"]))


def advice(table):
    return {r.column: r for r in table.advise().collect()}


def test_a_table_without_logged_queries_has_no_advice(table):
    assert table.advise().count() == 0


def test_ranges_on_the_clustered_column_are_answered_and_equality_on_a_spread_one_wants_a_bloom_filter(spark, table):
    for k in range(3):
        spark.read.parquet(table.root).where(f"a < {1000 * (k + 1)}").count()
        spark.read.parquet(table.root).where(f"u = {k}").count()
    found = advice(table)
    assert (found["a"].queries, found["a"].range_queries, found["a"].suggestion) == (3, 3, None)
    assert found["a"].indexes == ["MinMax(a)"] and found["a"].files_read_share < 0.5
    assert (found["u"].equality_queries, found["u"].suggestion) == (3, "BloomFilter(u)")
    assert found["u"].files_read_share > 0.5 and "not clustered" in found["u"].reason


def test_a_range_on_a_column_no_index_covers_wants_minmax(spark, table):
    table.build(ValueList("u", max_size=10))  # replaces the table's indexes: a has none now
    spark.read.parquet(table.root).where("a BETWEEN 10 AND 20").count()
    found = advice(table)["a"]
    assert (found.indexes, found.suggestion) == ([], "MinMax(a)") and "no index answers" in found.reason


def test_sql_describe_skipping_advice_has_the_rows_of_advise(spark, table):
    spark.read.parquet(table.root).where("u IN (1, 2)").count()
    from_sql = spark.sql(f"DESCRIBE SKIPPING ADVICE ON parquet.`{table.root}`").collect()
    assert [tuple(r) for r in from_sql] == [tuple(r) for r in table.advise().collect()]
    assert [(r.column, r.suggestion) for r in from_sql] == [("u", "BloomFilter(u)")]


def test_sql_describe_skipping_advice_on_files_that_are_no_table_says_so(spark, tmp_path):
    spark.range(10).write.parquet(str(tmp_path / "plain"))
    with pytest.raises(Exception, match="DESCRIBE SKIPPING ADVICE: .* is not a Skipstone table"):
        spark.sql(f"DESCRIBE SKIPPING ADVICE ON parquet.`{tmp_path / 'plain'}`").collect()


def test_sql_describe_skipping_advice_without_python_names_the_python_call(spark, table, without_python):
    with pytest.raises(Exception, match=r"has no Python driver; run Skipstone.for_path\(spark, '.*'\).advise\(\)"):
        spark.sql(f"DESCRIBE SKIPPING ADVICE ON parquet.`{table.root}`").collect()


def test_the_tables_doc_example_runs(spark, tmp_path):
    import doctest
    import re
    from pathlib import Path

    from skipstone import BloomFilter, MinMax

    doc = (Path(__file__).resolve().parents[2] / "docs" / "tables.md").read_text()
    section = doc.split("## Index advice", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```python\n(.*?)```", section, flags=re.S).group(1).replace("/tmp/skipstone-demo", str(tmp_path))
    # the page's doctest (its printed advice is checked by tests/docs); here, what the build changes
    code = "".join(example.source for example in doctest.DocTestParser().get_examples(block))
    scope = {"spark": spark, "Skipstone": Skipstone, "KdTree": KdTree, "MinMax": MinMax, "BloomFilter": BloomFilter}
    exec(code, scope)
    assert {r.column: r.suggestion for r in scope["t"].advise().collect()} == {"a": None, "u": None}  # u answered now
