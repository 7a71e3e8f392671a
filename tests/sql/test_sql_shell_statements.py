"""Skipstone's statements in a plain `spark-sql` shell started with only the jar and the extension."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from skipstone import EXTENSION_CLASS, MinMax, Skipstone, jar_path
from tests.datasets import write_clustered


def spark_sql() -> str | None:
    found = os.path.join(os.path.dirname(sys.executable), "spark-sql")
    return found if os.path.exists(found) else shutil.which("spark-sql")


@pytest.mark.skipif(spark_sql() is None, reason="pyspark's spark-sql script is not installed")
def test_statements_run_in_a_spark_sql_shell_and_errors_are_clear(spark, tmp_path):
    root = write_clustered(str(tmp_path / "events"))
    Skipstone.for_path(spark, root).build(MinMax("k"))
    sql = (f"DESCRIBE SKIPPING INDEX ON parquet.`{root}`; "
           f"SELECT count(*), max(s) FROM parquet.`{root}` WHERE k = 250; "
           "SHOW SKIPPING STATS; "
           f"EXPLAIN SELECT * FROM parquet.`{root}` WHERE k < 150; "
           f"CREATE SKIPPING INDEX ON parquet.`{root}` (PREFIX(s));")
    import pyspark

    env = dict(os.environ, SPARK_HOME=os.path.dirname(pyspark.__file__))  # the pip install's Spark
    done = subprocess.run(
        [spark_sql(), "--master", "local[1]", "--jars", jar_path(), "--conf", f"spark.sql.extensions={EXTENSION_CLASS}",
         "--conf", "spark.ui.enabled=false", "-e", sql],
        capture_output=True, text=True, timeout=300, cwd=str(tmp_path), env=env)
    out = done.stdout
    assert "MinMax(k)\tminmax\t[\"k\"]\t1\t10" in out            # DESCRIBE SKIPPING INDEX
    assert "1\ts02-050" in out                                     # the query's answer
    assert "\tNULL\t10\t9\t1\t" in out                             # SHOW SKIPPING STATS: 9 of 10 skipped, 1 read
    assert "== Skipstone ==" in out and "skipped 8 of 10 files" in out
    assert done.returncode != 0                                    # the last statement is wrong:
    assert "CREATE SKIPPING INDEX: PREFIX(s) needs OPTIONS (length ...)" in done.stderr


@pytest.mark.skipif(spark_sql() is None, reason="pyspark's spark-sql script is not installed")
def test_optimize_in_a_spark_sql_shell_compacts_and_names_what_needs_python(spark, tmp_path):
    from pyspark.sql import functions as F

    from skipstone.layout import KdTree

    rows = lambda start, n: spark.range(start, start + n).select(F.col("id").alias("a"), (F.col("id") % 7).alias("b"))
    table = Skipstone.create(spark, str(tmp_path / "t"), rows(0, 1500), layout=KdTree(block_rows=500, columns=["a"]))
    table.append(rows(0, 300))
    table.append(rows(600, 300))
    sql = (f"ALTER TABLE parquet.`{table.root}` SET TBLPROPERTIES ('optimize.strategies' = 'compaction'); "
           f"OPTIMIZE parquet.`{table.root}`; "
           f"OPTIMIZE parquet.`{table.root}` LAYOUT KD BY (b);")
    import pyspark

    env = dict(os.environ, SPARK_HOME=os.path.dirname(pyspark.__file__))
    done = subprocess.run(
        [spark_sql(), "--master", "local[1]", "--jars", jar_path(), "--conf", f"spark.sql.extensions={EXTENSION_CLASS}",
         "--conf", "spark.ui.enabled=false", "-e", sql],
        capture_output=True, text=True, timeout=300, cwd=str(tmp_path), env=env)
    assert f'{table.root}\t{{"version":{table.version},"strategy":"compaction"' in done.stdout  # the JVM compacted
    assert table.history().collect()[-1].strategy == "compaction"
    assert done.returncode != 0                                    # a layout needs Python:
    assert f"Run it from a shell: skipstone optimize {table.root} --layout kd --columns b" in done.stderr
