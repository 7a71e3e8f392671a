"""A failure is explained in the words of the interface it reached the user through: the same
refused vacuum tells a SQL user which ``ALTER TABLE`` opts in and a Python user to pass
``force=True``; neither is told the other's spelling (issue 24)."""
from __future__ import annotations

import shutil

import pytest

from skipstone import Skipstone, SkipstoneError
from skipstone.error_hints import KEYS
from skipstone.layout import KdTree
from tests.table.table_copies import local_path
from tests.table.table_data import batch


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    return Skipstone.create(spark, str(tmp_path_factory.mktemp("wording") / "t"), batch(spark, 0, 400),
                            layout=KdTree(block_rows=200, columns=["a"]))


def test_a_short_vacuum_from_python_says_force_and_set_properties(table):
    with pytest.raises(SkipstoneError) as refused:
        table.vacuum(retention_hours=1)
    message = str(refused.value)
    assert "under the table's 168.0 hours" in message
    assert "Pass force=True" in message and "t.set_properties({'vacuum.retentionHours': '1.0'})" in message
    assert "ALTER TABLE" not in message and "TBLPROPERTIES" not in message
    # the remedy as data too, for the command line to word its own way
    assert (refused.value.hint, refused.value.facts) == ("vacuum.underTableRetention", {"hours": "1.0", "floor": "168.0"})
    assert "force" not in refused.value.problem and refused.value.problem in message


def test_the_same_vacuum_from_sql_says_alter_table(spark, table):
    target = f"parquet.`{table.root}`"
    with pytest.raises(Exception) as refused:
        spark.sql(f"VACUUM {target} RETAIN 1 HOURS")
    message = str(refused.value)
    assert f"VACUUM {target} RETAIN 1.0 HOURS: vacuum of" in message and "under the table's 168.0 hours" in message
    assert f"ALTER TABLE {target} SET TBLPROPERTIES ('vacuum.retentionHours' = '1.0')" in message
    assert "force" not in message and "set_properties" not in message


def test_sql_on_a_plain_directory_says_create_table(spark, tmp_path):
    plain = str(tmp_path / "plain")
    spark.range(3).write.parquet(plain)
    with pytest.raises(Exception) as refused:
        spark.sql(f"VACUUM parquet.`{plain}` DRY RUN")
    message = str(refused.value)
    assert "is not a Skipstone table" in message and "CREATE TABLE parquet.`" in message
    assert "USING skipstone AS SELECT" in message and "Skipstone.create" not in message


def test_python_on_a_table_whose_log_went_away_says_skipstone_create(spark, tmp_path):
    gone = Skipstone.create(spark, str(tmp_path / "gone"), batch(spark, 0, 100), layout=KdTree(block_rows=100, columns=["a"]))
    shutil.rmtree(local_path(gone.root) + "/_skipstone")
    with pytest.raises(SkipstoneError) as refused:
        gone.vacuum(dry_run=True)
    message = str(refused.value)
    assert "is not a Skipstone table" in message and f"Skipstone.create(spark, '{gone.root}', df)" in message
    assert "CREATE TABLE" not in message


def test_every_hint_the_jvm_names_has_python_words(spark):
    jvm_keys = set(str(spark._jvm.io.skipstone.table.Hint.All().mkString(",")).split(","))
    assert jvm_keys == set(KEYS)
