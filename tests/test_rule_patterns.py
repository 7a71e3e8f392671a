"""What a rule's pattern matches: exactly the predicates whose value it describes, no others.

File f (0, 1, 2) of the ``numbers`` dataset holds five rows of i = f + 1 (int), k = f (int),
x = f + 0.5 and y = f - 0.5 (double), and s = 'x' repeated f + 1 times, so each file's values
are known by hand.
"""
from __future__ import annotations

import os

import pyarrow as pa
import pytest

import udfs  # noqa: F401  (Python workers use this interpreter and see this directory)
from conftest import run_both_ways
from datasets import write_tables
from skipstone import Formatted, Skipstone, SkipstoneError
from user_types import HalfFlag, Ranges


def as_text(v: object) -> str | None:
    """A formatting UDF: its value depends on the argument's type (3 gives '3', 3.0 gives '3.0')."""
    return None if v is None else str(v)


def text_length(s: str | None) -> int | None:
    return None if s is None else len(s)


def numbers_table(f: int) -> pa.Table:
    return pa.table({
        "i": pa.array([f + 1] * 5, pa.int32()),
        "k": pa.array([f] * 5, pa.int32()),
        "x": pa.array([f + 0.5] * 5, pa.float64()),
        "y": pa.array([f - 0.5] * 5, pa.float64()),
        "s": pa.array(["x" * (f + 1)] * 5),
    })


@pytest.fixture(scope="module")
def numbers(spark, tmp_path_factory) -> str:
    spark.udf.register("as_text", as_text, "string")
    spark.udf.register("text_length", text_length, "int")
    root = write_tables(str(tmp_path_factory.mktemp("patterns") / "numbers"), [numbers_table(f) for f in range(3)])
    Skipstone.for_path(spark, root).build(
        Formatted("x", "int({col})", type="int"),      # int(0.5) = 0, int(1.5) = 1, int(2.5) = 2
        Formatted("i", as_text, "as_text"),
        Formatted("s", text_length, "text_length"),    # an int UDF; its type is found at build
        Formatted("s", "length({col})"),
        HalfFlag("k"),
        HalfFlag("y"),
    )
    return root


def query(root: str, predicate: str) -> str:
    return f"SELECT i, k, x, s FROM parquet.`{root}` WHERE {predicate}"


def test_cast_function_in_pattern_does_not_match_a_cast_to_another_type(spark, numbers):
    # int(x) is a Cast, and so is CAST(x AS DECIMAL(10,1)); only the first is what is indexed
    rows, stats = run_both_ways(spark, query(numbers, "CAST(x AS DECIMAL(10,1)) = 2.5"))
    assert [r[0] for r in rows] == [3] * 5
    assert stats.files_skipped < 3


def test_cast_function_in_pattern_still_matches_its_own_cast(spark, numbers):
    rows, stats = run_both_ways(spark, query(numbers, "int(x) = 2"))
    assert [r[0] for r in rows] == [3] * 5
    assert stats.files_skipped == 2


def test_cast_inside_a_function_argument_is_not_looked_through(spark, numbers):
    # as_text(CAST(i AS DOUBLE)) is '3.0' where as_text(i) is '3': not the indexed value
    rows, stats = run_both_ways(spark, query(numbers, "as_text(CAST(i AS DOUBLE)) = '3.0'"))
    assert [r[0] for r in rows] == [3] * 5
    rows, stats = run_both_ways(spark, query(numbers, "as_text(i) = '3'"))
    assert [r[0] for r in rows] == [3] * 5
    assert stats.files_skipped == 2


def test_pattern_literal_does_not_match_a_value_it_truncates_to(spark, numbers):
    # the rule knows `k >= 0.5`; `k >= 0` holds for k = 0, which `k >= 0.5` does not
    rows, _ = run_both_ways(spark, query(numbers, "k >= 0"))
    assert sorted({r[1] for r in rows}) == [0, 1, 2]


def test_pattern_literal_matches_the_same_value_in_another_type(spark, numbers):
    # the pattern's 0.5 is a decimal, the query's 0.50D a double: the same number
    rows, stats = run_both_ways(spark, query(numbers, "y >= 0.50D"))
    assert sorted({r[1] for r in rows}) == [1, 2]
    assert stats.files_skipped == 1


@pytest.mark.parametrize("predicate", ["text_length(s) = 2", "length(s) = 2", "text_length(s) IN (2, 7)"])
def test_formatted_with_int_result_skips_like_strings(spark, numbers, predicate):
    rows, stats = run_both_ways(spark, query(numbers, predicate))
    assert [r[3] for r in rows] == ["xx"] * 5
    assert stats.files_skipped == 2


def test_formatted_type_that_is_not_the_function_type_is_rejected(spark, numbers):
    with pytest.raises(SkipstoneError, match=r"type='string' but text_length\(s\) returns int"):
        Skipstone.for_path(spark, numbers).build(Formatted("s", text_length, "text_length", type="string"))


def test_user_type_with_a_cover_answers_conjunctions_whole(spark, tmp_path):
    # file 0: ranges [0, 1] and [10, 11]; `v > 3` meets one, `v < 8` the other, none both
    root = write_tables(str(tmp_path / "ranges"), [pa.table({"v": pa.array([0, 1, 10, 11], pa.int32())}),
                                                   pa.table({"v": pa.array([5, 6], pa.int32())})])
    Skipstone.for_path(spark, root).build(Ranges("v"))
    rows, stats = run_both_ways(spark, f"SELECT v FROM parquet.`{root}` WHERE v > 3 AND v < 8")
    assert rows == [(5,), (6,)]
    assert stats.files_skipped == 1
    _, stats = run_both_ways(spark, f"SELECT v FROM parquet.`{root}` WHERE v > 3 OR v < 8")
    assert stats.files_skipped == 0
