"""`IS [NOT] NULL` and `IS [NOT] TRUE/FALSE` over AND/OR skip files by the operands' NULL counts.

Each file holds 10 rows of two int columns, chosen so that what each test can be on a row
(TRUE, FALSE, NULL) is known by hand:

| file | a               | b              | s         |
|------|-----------------|----------------|-----------|
| 0    | 1..10           | 1..10          | 'x'       |
| 1    | NULL            | 1..10          | '1'       |
| 2    | 1..10           | NULL           | '1'       |
| 3    | NULL            | NULL           | NULL      |
| 4    | -10..-1         | NULL           | '1'       |
| 5    | NULL            | -10..-1        | '1'       |
| 6    | NULL on evens   | 1..10          | '1'       |
| 7    | 5..14           | 5..14          | '1'       |
| 8    | -10..-1         | -10..-1        | '1'       |
"""
from __future__ import annotations

import pyarrow as pa
import pytest

from conftest import run_both_ways
from datasets import write_tables
from skipstone import MinMax, Skipstone

ROWS = range(10)
NULLS = [None] * 10


def _file(a: list[int | None], b: list[int | None], s: str | None) -> pa.Table:
    return pa.table({"a": pa.array(a, pa.int32()), "b": pa.array(b, pa.int32()),
                     "c": pa.array([j for j in ROWS], pa.int32()), "s": pa.array([s] * 10, pa.string())})


FILES = [
    _file([j + 1 for j in ROWS], [j + 1 for j in ROWS], "x"),
    _file(NULLS, [j + 1 for j in ROWS], "1"),
    _file([j + 1 for j in ROWS], NULLS, "1"),
    _file(NULLS, NULLS, None),
    _file([-j - 1 for j in ROWS], NULLS, "1"),
    _file(NULLS, [-j - 1 for j in ROWS], "1"),
    _file([None if j % 2 == 0 else j + 1 for j in ROWS], [j + 1 for j in ROWS], "1"),
    _file([j + 5 for j in ROWS], [j + 5 for j in ROWS], "1"),
    _file([-j - 1 for j in ROWS], [-j - 1 for j in ROWS], "1"),
]


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory) -> str:
    root = write_tables(str(tmp_path_factory.mktemp("nulls") / "t"), FILES)
    Skipstone.for_path(spark, root).build(MinMax("a"), MinMax("b"), MinMax("s"))
    return root


def skipped(spark, root: str, predicate: str) -> int:
    _, stats = run_both_ways(spark, f"SELECT a, b FROM parquet.`{root}` WHERE {predicate}")
    return stats.files_skipped


def test_and_is_null_skips_files_where_no_operand_can_be_null_or_one_is_always_false(spark, table):
    # 0, 7 and 8 hold no NULL; in 4 and 5 one operand is FALSE on every row, so the AND is FALSE.
    assert skipped(spark, table, "(a > 0 AND b > 1) IS NULL") == 5


def test_and_is_not_null_skips_files_where_the_and_is_null_on_every_row(spark, table):
    # 3 is all NULL; in 2 `a > 0` is TRUE and b NULL on every row.
    assert skipped(spark, table, "(a > 0 AND b > 1) IS NOT NULL") == 2


def test_or_is_null_skips_files_where_an_operand_is_always_true(spark, table):
    # 0, 7 and 8 hold no NULL; in 2 `a > 0` is TRUE on every row, so the OR is TRUE.
    assert skipped(spark, table, "(a > 0 OR b > 1) IS NULL") == 4


def test_and_is_not_true_skips_files_where_the_and_is_always_true(spark, table):
    assert skipped(spark, table, "(a > 0 AND b > 1) IS NOT TRUE") == 1   # file 7


def test_and_is_true_skips_as_the_and_itself(spark, table):
    assert skipped(spark, table, "(a > 0 AND b > 1) IS TRUE") == 6       # all but 0, 6, 7


def test_or_is_false_skips_all_but_files_where_both_can_be_false(spark, table):
    assert skipped(spark, table, "(a > 0 OR b > 1) IS FALSE") == len(FILES) - 1   # file 8


def test_or_is_not_false_skips_files_where_both_are_always_false(spark, table):
    assert skipped(spark, table, "(a > 0 OR b > 1) IS NOT FALSE") == 1   # file 8


def test_not_over_a_null_test_skips_as_its_negation(spark, table):
    assert skipped(spark, table, "NOT ((a > 0 OR b > 1) IS NOT FALSE)") == len(FILES) - 1


def test_null_test_of_a_single_comparison_uses_its_column_null_count(spark, table):
    # files 0, 2, 4, 7, 8 have no NULL a
    assert skipped(spark, table, "(a > 0) IS NULL") == 5


def test_an_unindexed_operand_still_lets_the_indexed_one_skip(spark, table):
    # c has no index: the AND can still not be NULL where `a > 0` is FALSE on every row and
    # a has no NULL (files 4 and 8).
    assert skipped(spark, table, "(a > 0 AND c > 1) IS NULL") == 2


def test_a_cast_that_fails_to_null_is_not_taken_for_its_column_nulls(spark, table):
    # s = 'x' in file 0 has no NULL, but try_cast('x' AS INT) is NULL, so file 0 holds matches.
    rows, stats = run_both_ways(spark, f"SELECT a FROM parquet.`{table}` WHERE (try_cast(s AS INT) > 0 AND a > 0) IS NULL")
    assert len(rows) >= 10
    assert stats.files_skipped == 2   # only 4 and 8, where `a > 0` is FALSE on every row and a has no NULL


TRUTH_TESTS = ["IS NULL", "IS NOT NULL", "IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE"]
CONNECTIVES = ["a > 3 AND b < 5", "a > 3 OR b < 5", "NOT (a > 3 AND b IS NULL)", "(a > 3 OR b = 2) AND NOT (b > 8)",
               "a IN (1, 5, NULL) OR b <=> 3"]


@pytest.mark.parametrize("test", TRUTH_TESTS)
@pytest.mark.parametrize("connective", CONNECTIVES)
def test_every_truth_test_over_every_connective_returns_the_rows_spark_returns(spark, table, connective, test):
    for predicate in (f"({connective}) {test}", f"NOT (({connective}) {test})"):
        run_both_ways(spark, f"SELECT a, b FROM parquet.`{table}` WHERE {predicate}")
