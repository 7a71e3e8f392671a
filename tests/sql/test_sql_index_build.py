"""CREATE and REFRESH SKIPPING INDEX build in the JVM, through the same code as Python's
``build()``/``refresh()``: the metadata is the same, and every query answers the same with
skipping on and off."""
from __future__ import annotations

import pytest
from pyspark.errors import IllegalArgumentException

import skipstone
from skipstone import BloomFilter, MinMax, Skipstone, ValueList
from skipstone.layout import Amoeba
from tests.datasets import clustered_table, write_clustered, write_file

QUERIES = ("k = 250", "k BETWEEN 120 AND 180 OR k > 990", "cat = 'c3'", "s = 's04-017'", "s IN ('nope', 's09-001')",
           "NOT (k < 900)", "k IS NULL")

CREATE = """CREATE SKIPPING INDEX ON parquet.`{root}` (
  MINMAX(k),
  VALUELIST(cat) OPTIONS (max_size 50),
  BLOOMFILTER(s) OPTIONS (fpp 0.01, expected_items 1000)
)"""


def answers(spark, root: str, where: str, enabled: bool) -> list:
    spark.conf.set("spark.skipstone.enabled", str(enabled).lower())
    try:
        return sorted(spark.sql(f"SELECT k, s, cat FROM parquet.`{root}` WHERE {where}").collect())
    finally:
        spark.conf.set("spark.skipstone.enabled", "true")


def metadata(spark, root: str) -> list:
    table_dir = Skipstone.for_path(spark, root)._current()[1]  # type: ignore[index]
    from pyspark.sql import functions as F

    df = (spark.read.parquet(table_dir).drop("mtime", "fingerprint")  # the same files, in two directories
          .withColumn("path", F.regexp_extract("path", r"[^/]+$", 0)))
    return sorted(tuple(str(v) for v in r) for r in df.select(*sorted(df.columns)).collect())


def test_create_builds_what_python_builds_and_skips_without_a_wrong_answer(spark, tmp_path):
    by_sql, by_python = write_clustered(str(tmp_path / "sql")), write_clustered(str(tmp_path / "python"))
    [row] = spark.sql(CREATE.format(root=by_sql)).collect()
    assert row.dataset.endswith("/sql") and row.version >= 1
    Skipstone.for_path(spark, by_python).build(MinMax("k"), ValueList("cat", max_size=50),
                                               BloomFilter("s", fpp=0.01, expected_items=1000))
    assert metadata(spark, by_sql) == metadata(spark, by_python)
    described = [r["index"] for r in spark.sql(f"DESCRIBE SKIPPING INDEX ON parquet.`{by_sql}`").collect()]
    assert described == [r["index"] for r in Skipstone.for_path(spark, by_python).describe().collect()]
    for where in QUERIES:
        assert answers(spark, by_sql, where, True) == answers(spark, by_sql, where, False), where
    answers(spark, by_sql, "k = 250", True)
    assert skipstone.last_query_stats(spark).files_skipped == 9


def test_refresh_indexes_a_new_file_and_queries_stay_right(spark, tmp_path):
    root = write_clustered(str(tmp_path / "events"), files=4)
    spark.sql(CREATE.format(root=root)).collect()
    write_file(root, 7, clustered_table(7))  # k in 700..799, not indexed yet
    assert answers(spark, root, "k = 750", True) == answers(spark, root, "k = 750", False) != []
    [row] = spark.sql(f"REFRESH SKIPPING INDEX ON parquet.`{root}`").collect()
    assert row.version >= 2
    assert [r.files_indexed for r in spark.sql(f"DESCRIBE SKIPPING INDEX ON parquet.`{root}`").collect()] == [5, 5, 5]
    assert answers(spark, root, "k = 750", False) == answers(spark, root, "k = 750", True)
    assert skipstone.last_query_stats(spark).files_skipped == 4


def test_a_column_the_dataset_lacks_is_named(spark, tmp_path):
    root = write_clustered(str(tmp_path / "events"), files=2)
    with pytest.raises(Exception, match="nope"):
        spark.sql(f"CREATE SKIPPING INDEX ON parquet.`{root}` (MINMAX(nope))").collect()


def test_a_managed_table_is_refused(spark, tmp_path):
    df = spark.createDataFrame([(i, f"s{i % 5}") for i in range(100)], "i INT, s STRING")
    t = Skipstone.create(spark, str(tmp_path / "managed"), df, layout=Amoeba(block_rows=50))
    for statement in (f"CREATE SKIPPING INDEX ON parquet.`{t.root}` (MINMAX(i))",
                      f"REFRESH SKIPPING INDEX ON parquet.`{t.root}`"):
        with pytest.raises(IllegalArgumentException, match="managed table"):
            spark.sql(statement).collect()
