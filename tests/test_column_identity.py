"""Columns are matched by exact path: a top-level `a.b` is not struct field a.b; case rules hold."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import run_both_ways
from datasets import write_tables
from skipstone import MinMax, Skipstone, SkipstoneError, ValueList


def dotted_and_nested(root: str) -> str:
    """Top-level column `a.b` and struct a with field b hold unrelated values, per file.

    Spark's own Parquet pushdown confuses the two (it filters row groups of `a.b` = 12 with
    the struct field's statistics and returns nothing), so these queries run without it.
    """
    tables = []
    for i in range(3):
        tables.append(pa.table({
            "a.b": pa.array([i * 10 + j for j in range(5)], pa.int32()),
            "a": pa.array([{"b": 1000 + i * 10 + j} for j in range(5)], pa.struct([("b", pa.int32())])),
        }))
    return write_tables(root, tables)


@pytest.mark.parametrize("use_footers", [True, False])
def test_index_on_top_level_dotted_column_does_not_answer_struct_field(spark, tmp_path, use_footers):
    root = dotted_and_nested(str(tmp_path / "dotted"))
    Skipstone.for_path(spark, root).build(MinMax("`a.b`"), use_footers=use_footers)
    rows, stats = run_both_ways(spark, f"SELECT `a.b`, a.b FROM parquet.`{root}` WHERE a.b = 1012", False)
    assert rows == [(12, 1012)]
    rows, stats = run_both_ways(spark, f"SELECT `a.b` FROM parquet.`{root}` WHERE `a.b` = 12", False)
    assert rows == [(12,)]
    assert stats.files_skipped == 2


def test_index_on_struct_field_does_not_answer_top_level_dotted_column(spark, tmp_path):
    root = dotted_and_nested(str(tmp_path / "nested"))
    Skipstone.for_path(spark, root).build(MinMax("a.`b`"), ValueList("a.`b`"))
    rows, _ = run_both_ways(spark, f"SELECT a.b FROM parquet.`{root}` WHERE `a.b` = 12", False)
    assert rows == [(1012,)]
    rows, stats = run_both_ways(spark, f"SELECT a.b FROM parquet.`{root}` WHERE a.b = 1012", False)
    assert stats.files_skipped == 2


def test_unquoted_dotted_name_that_is_both_column_and_field_is_refused(spark, tmp_path):
    root = dotted_and_nested(str(tmp_path / "both"))
    with pytest.raises(SkipstoneError, match="ambiguous"):
        Skipstone.for_path(spark, root).build(MinMax("a.b"))


def test_unquoted_dotted_name_of_a_top_level_column_resolves_to_it(spark, tmp_path):
    root = write_tables(str(tmp_path / "flat"), [
        pa.table({"x.y": pa.array([i * 10 + j for j in range(5)], pa.int64())}) for i in range(3)])
    Skipstone.for_path(spark, root).build(MinMax("x.y"))
    rows, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{root}` WHERE `x.y` > 21")
    assert rows == [(22,), (23,), (24,)]
    assert stats.files_skipped == 2


@pytest.fixture()
def case_sensitive(spark):
    spark.conf.set("spark.sql.caseSensitive", "true")
    yield spark
    spark.conf.set("spark.sql.caseSensitive", "false")


@pytest.mark.parametrize("use_footers", [True, False])
def test_case_sensitive_session_takes_statistics_of_the_named_column(case_sensitive, tmp_path, use_footers):
    spark = case_sensitive
    # `A` and `a` hold disjoint ranges: statistics of the wrong one would skip the right file.
    tables = [pa.table({"A": pa.array([100 + i * 10 + j for j in range(5)], pa.int32()),
                        "a": pa.array([i * 10 + j for j in range(5)], pa.int32())}) for i in range(3)]
    root = str(tmp_path / f"cases-{use_footers}")
    for i, t in enumerate(tables):
        import os
        os.makedirs(root, exist_ok=True)
        pq.write_table(t, os.path.join(root, f"part-{i}.parquet"))
    Skipstone.for_path(spark, root).build(MinMax("a"), use_footers=use_footers)
    rows, stats = run_both_ways(spark, f"SELECT a, A FROM parquet.`{root}` WHERE a = 12")
    assert rows == [(12, 112)]
    assert stats.files_skipped == 2
    rows, stats = run_both_ways(spark, f"SELECT a FROM parquet.`{root}` WHERE A = 112")
    assert rows == [(12,)]
    assert stats.files_skipped == 0


def test_case_sensitive_session_refuses_index_on_wrongly_cased_name(case_sensitive, tmp_path):
    root = write_tables(str(tmp_path / "lower"), [pa.table({"k": pa.array([1, 2], pa.int32())})])
    with pytest.raises(SkipstoneError, match="'K' does not exist"):
        Skipstone.for_path(case_sensitive, root).build(MinMax("K"))
