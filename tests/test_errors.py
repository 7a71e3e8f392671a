"""Bad input gets a clear error naming what is at fault, and never touches the data."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from datasets import write_clustered
from skipstone import MinMax, Skipstone, SkipstoneError


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory) -> str:
    return write_clustered(str(tmp_path_factory.mktemp("errors") / "events"), files=2)


def test_index_on_missing_column_names_column_and_dataset(spark, table):
    with pytest.raises(SkipstoneError, match=r"column 'temperature' does not exist in dataset .*events"):
        Skipstone.for_path(spark, table).build(MinMax("temperature"))


def test_index_on_unsupported_type_names_column_and_type(spark, tmp_path):
    root = str(tmp_path / "arrays")
    spark.sql("SELECT array(1, 2) AS tags").write.parquet(root)
    with pytest.raises(SkipstoneError, match=r"MinMax cannot index column 'tags'.*array<int>"):
        Skipstone.for_path(spark, root).build(MinMax("tags"))


def test_build_without_indexes_is_an_error(spark, table):
    with pytest.raises(SkipstoneError, match="at least one index"):
        Skipstone.for_path(spark, table).build()


def test_same_index_twice_is_an_error(spark, table):
    with pytest.raises(SkipstoneError, match=r"MinMax\(k\) is requested twice"):
        Skipstone.for_path(spark, table).build(MinMax("k"), MinMax("k"))


def test_refresh_before_build_names_the_dataset(spark, tmp_path):
    root = write_clustered(str(tmp_path / "fresh"), files=1)
    with pytest.raises(SkipstoneError, match=r"dataset .*fresh has no Skipstone index"):
        Skipstone.for_path(spark, root).refresh()


def test_failed_build_leaves_data_and_previous_index_intact(spark, tmp_path):
    root = write_clustered(str(tmp_path / "kept"), files=2)
    ds = Skipstone.for_path(spark, root)
    ds.build(MinMax("k"))
    with pytest.raises(SkipstoneError):
        ds.build(MinMax("nope"))
    assert [r["index"] for r in ds.describe().collect()] == ["MinMax(k)"]
    assert sorted(os.listdir(root)) == ["_skipstone", "part-00000.parquet", "part-00001.parquet"]


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(os.path.dirname(__file__)), "python"))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=300)


def test_extension_not_loaded_gives_clear_error(table):
    # A separate process: extensions are fixed when a JVM's first session starts.
    result = run_python(f"""
        import skipstone
        from pyspark.sql import SparkSession
        spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
                 .config("spark.jars", skipstone.jar_path())
                 .config("spark.sql.extensions", "io.skipstone.NoSuchExtension").getOrCreate())
        try:
            skipstone.Skipstone.for_path(spark, {table!r})
        except skipstone.SkipstoneError as e:
            print("ERROR:", e)
        spark.stop()
        spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
        try:
            skipstone.last_query_stats(spark)
        except skipstone.SkipstoneError as e:
            print("ERROR:", e)
    """)
    errors = [line for line in result.stdout.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 2, result.stdout + result.stderr
    assert "extension is not active" in errors[0] and "io.skipstone.NoSuchExtension" in errors[0]
    assert "not on this SparkSession's class path" in errors[1] or "not active" in errors[1]
