"""VARIANT columns: MinMax keeps their NULL count, Formatted over `variant_get` indexes a path.

Files (Parquet written by Spark from `parse_json`), 10 rows each:

| file | v                       |
|------|-------------------------|
| 0    | {"a": 1..10}            |
| 1    | {"a": 20..29}           |
| 2    | NULL                    |
| 3    | {"b": 5} (no path a)    |
| 4    | {"a": 40..49}, NULL on evens |
"""
from __future__ import annotations

import pytest

from conftest import run_both_ways
from skipstone import Formatted, MinMax, Skipstone

FILES = [
    "parse_json(concat('{\"a\":', id + 1, '}'))",
    "parse_json(concat('{\"a\":', id + 20, '}'))",
    "CAST(NULL AS VARIANT)",
    "parse_json('{\"b\":5}')",
    "IF(id % 2 = 0, NULL, parse_json(concat('{\"a\":', id + 40, '}')))",
]
PATH_A = "variant_get(v, '$.a', 'int')"


def write_variant_files(spark, root: str, values: list[str]) -> str:
    for i, value in enumerate(values):
        spark.sql(f"SELECT id, {value} AS v FROM range(10)").coalesce(1).write.mode("append").parquet(root)
    return root


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory) -> str:
    root = write_variant_files(spark, str(tmp_path_factory.mktemp("variant") / "t"), FILES)
    Skipstone.for_path(spark, root).build(MinMax("v"), Formatted("v", "variant_get({col}, '$.a', 'int')"))
    return root


def query(spark, root: str, predicate: str):
    return run_both_ways(spark, f"SELECT id, CAST(v AS STRING) FROM parquet.`{root}` WHERE {predicate}")


def test_minmax_on_a_variant_column_skips_files_without_nulls_for_is_null(spark, table):
    assert query(spark, table, "v IS NULL")[1].files_skipped == 3          # 0, 1, 3


def test_minmax_on_a_variant_column_skips_all_null_files_for_is_not_null(spark, table):
    assert query(spark, table, "v IS NOT NULL")[1].files_skipped == 1      # 2


def test_formatted_over_a_variant_path_skips_ranges(spark, table):
    rows, stats = query(spark, table, f"{PATH_A} > 25")
    assert len(rows) == 4 + 5                                               # 26..29 and the odd 41..49
    assert stats.files_skipped == 3                                         # 0, 2, 3


def test_formatted_over_a_variant_path_skips_a_range_with_the_path_on_the_right(spark, table):
    assert query(spark, table, f"15 >= {PATH_A}")[1].files_skipped == 4    # all but 0


def test_formatted_over_a_variant_path_skips_equality(spark, table):
    assert query(spark, table, f"{PATH_A} = 22")[1].files_skipped == 4     # all but 1


def test_formatted_over_a_variant_path_answers_a_negated_range(spark, table):
    # NOT (a >= 20) needs a non-NULL a below 20: only file 0 has one.
    assert query(spark, table, f"NOT ({PATH_A} >= 20)")[1].files_skipped == 4


def test_an_index_over_another_path_or_type_does_not_answer(spark, table):
    formatted = "Formatted(v, variant_get({col}, '$.a', 'int'))"
    for other in ("variant_get(v, '$.a', 'bigint') > 25", "variant_get(v, '$.b', 'int') > 25"):
        _, stats = query(spark, table, other)
        assert stats.per_dataset[0].skipped_by_index[formatted] == 0
        # Spark infers `v IS NOT NULL` from variant_get: the all-NULL file 2 goes by its NULL count.
        assert stats.files_skipped == 1


def test_a_try_variant_get_index_skips_what_fails_to_cast_and_does_not_answer_variant_get(spark, tmp_path_factory):
    # File 1's values are not numbers: try_variant_get makes them NULL, variant_get fails on them.
    root = write_variant_files(spark, str(tmp_path_factory.mktemp("variant_try") / "t"),
                               ["parse_json(concat('{\"a\":', id + 1, '}'))", "parse_json('{\"a\":\"x\"}')"])
    Skipstone.for_path(spark, root).build(Formatted("v", "try_variant_get({col}, '$.a', 'int')"))
    assert query(spark, root, "try_variant_get(v, '$.a', 'int') > 5")[1].files_skipped == 1
    # A query that calls variant_get must still read (and fail on) file 1, as Spark does.
    spark.conf.set("spark.skipstone.enabled", "true")
    with pytest.raises(Exception, match="(?i)cast|variant"):
        spark.sql(f"SELECT * FROM parquet.`{root}` WHERE variant_get(v, '$.a', 'int') > 5").collect()
