"""Skipstone's statements in a plain `spark-sql` shell started with only the jar and the extension."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from skipstone import EXTENSION_CLASS, MinMax, Skipstone, jar_path
from tests.datasets import write_clustered

# over 15 s: make test-long runs it (CI after make test), not make test
pytestmark = pytest.mark.long


def fragmented_table(spark, path: str):
    """A managed table whose blocks hold more files than their rows need (two appends)."""
    from pyspark.sql import functions as F

    from skipstone.layout import KdTree

    rows = lambda start, n: spark.range(start, start + n).select(F.col("id").alias("a"), (F.col("id") % 7).alias("b"))
    table = Skipstone.create(spark, path, rows(0, 1500), layout=KdTree(block_rows=500, columns=["a"]))
    table.append(rows(0, 300))
    table.append(rows(600, 300))
    return table


def spark_sql() -> str | None:
    found = os.path.join(os.path.dirname(sys.executable), "spark-sql")
    return found if os.path.exists(found) else shutil.which("spark-sql")


@pytest.mark.skipif(spark_sql() is None, reason="pyspark's spark-sql script is not installed")
def test_statements_run_in_a_spark_sql_shell_and_errors_are_clear(spark, tmp_path):
    root = write_clustered(str(tmp_path / "events"))
    Skipstone.for_path(spark, root).build(MinMax("k"))
    table = fragmented_table(spark, str(tmp_path / "t"))
    sql = (f"DESCRIBE SKIPPING INDEX ON parquet.`{root}`; "
           f"SELECT count(*), max(s) FROM parquet.`{root}` WHERE k = 250; "
           "SHOW SKIPPING STATS; "
           f"EXPLAIN SELECT * FROM parquet.`{root}` WHERE k < 150; "
           f"ALTER TABLE parquet.`{table.root}` SET TBLPROPERTIES ('optimize.strategies' = 'compaction'); "
           f"OPTIMIZE parquet.`{table.root}`; "
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
    # OPTIMIZE without a Python driver: the JVM compacts (a layout would need Python: test_sql_optimize.py)
    assert f'{table.root}\t{{"version":{table.version},"strategy":"compaction"' in out
    assert table.history().collect()[-1].strategy == "compaction"
    assert done.returncode != 0                                    # the last statement is wrong:
    assert "CREATE SKIPPING INDEX: PREFIX(s) needs OPTIONS (length ...)" in done.stderr

