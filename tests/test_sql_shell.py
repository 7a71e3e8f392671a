"""The plain way in: the `spark-sql` shell with --jars and --conf skips with indexes built earlier."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from datasets import write_clustered
from skipstone import EXTENSION_CLASS, MinMax, Skipstone, jar_path

# over 15 s: make test-long runs it (CI after make test), not make test
pytestmark = pytest.mark.long


def spark_sql() -> str | None:
    found = os.path.join(os.path.dirname(sys.executable), "spark-sql")
    return found if os.path.exists(found) else shutil.which("spark-sql")


@pytest.mark.skipif(spark_sql() is None, reason="pyspark's spark-sql script is not installed")
def test_spark_sql_shell_wraps_the_scan_and_answers_correctly(spark, tmp_path):
    root = write_clustered(str(tmp_path / "events"))
    Skipstone.for_path(spark, root).build(MinMax("k"))
    sql = (f"EXPLAIN SELECT count(*) FROM parquet.`{root}` WHERE k = 250; "
           f"SELECT count(*), max(s) FROM parquet.`{root}` WHERE k = 250;")
    import pyspark

    env = dict(os.environ, SPARK_HOME=os.path.dirname(pyspark.__file__))  # the pip install's Spark
    done = subprocess.run(
        [spark_sql(), "--master", "local[1]", "--jars", jar_path(), "--conf", f"spark.sql.extensions={EXTENSION_CLASS}",
         "--conf", "spark.ui.enabled=false", "-e", sql],
        capture_output=True, text=True, timeout=300, cwd=str(tmp_path), env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "SkippingFileIndex" in done.stdout
    assert "1\ts02-050" in done.stdout
