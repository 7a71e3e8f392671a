"""A user-defined index type in a few lines: roles and rules as data, answered in the JVM.

The types are in user_types.py. File i of the ``words`` dataset holds words of length 2i+1
and 2i+2 (file 2: only length 5, file 6: only NULLs), so the files a length range rules out
are known by hand.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import ClassVar

import pyarrow as pa
import pytest

import udfs  # noqa: F401  (Python workers use this interpreter)
from conftest import run_both_ways
from datasets import write_file
from skipstone import Role, Rule, RuleIndex, Skipstone, SkipstoneError
from user_types import FirstLetters, LengthRange, words_table


@pytest.fixture(scope="module")
def words(spark, tmp_path_factory) -> str:
    root = str(tmp_path_factory.mktemp("rules") / "words")
    os.makedirs(root)
    for i in range(7):
        write_file(root, i, words_table(i))
    Skipstone.for_path(spark, root).build(LengthRange("word"), FirstLetters("word"))
    return root


CASES = [
    # (predicate, files skipped out of 7); lengths per file: [1,2] [3,4] [5] [7,8] [9,10] [11,12] NULL
    ("length(word) = 5", 6),
    ("5 = length(word)", 6),
    ("char_length(word) = 4", 6),             # another name of the same built-in
    ("length(word) > 8", 5),
    ("length(word) <= 4", 5),
    ("length(word) >= 12", 6),
    ("9 < length(word)", 5),
    ("length(word) BETWEEN 4 AND 5", 5),
    ("length(word) IN (1, 12)", 5),
    ("length(word) IN (1, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23)", 6),   # InSet
    ("length(word) = 5L", 6),                 # Spark casts length() to bigint
    ("length(word) > 8.5", 5),                # ... or to decimal
    ("NOT (length(word) = 5)", 2),            # file 2 has only length 5; NULLs are never FALSE
    ("length(word) = 5 OR length(word) = 11", 5),
    ("length(upper(word)) = 5", 0),           # not the indexed expression
    ("substr(word, 1, 1) = 'c'", 6),
    ("substr(word, 1, 2) = 'c'", 0),          # a different literal: not the pattern
    ("word LIKE 'dd%'", 6),                   # Spark turns this LIKE into startswith
    ("word LIKE 'z%'", 7),
    ("startswith(word, '')", 0),              # every word starts with '': no letter rules it out
]


@pytest.mark.parametrize("predicate,skipped", CASES, ids=[c[0] for c in CASES])
def test_user_defined_type_skips_provable_files(spark, words, predicate, skipped):
    rows, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{words}` WHERE {predicate}")
    assert stats.files_total == 7
    assert stats.files_skipped == skipped


def test_definition_is_stored_as_sql_text(spark, words):
    import json

    ds = Skipstone.for_path(spark, words)
    _, _, definition = ds._current()
    stored = {ix["kind"]: ix for ix in definition["indexes"]}
    params = stored["length_range"]["params"]
    assert params["role.longest.sql"] == "max(length({col}))"
    assert params["rule.0.pattern"] == "length({col}) = {v}"
    assert stored["first_letters"]["params"]["role.letters.type"] == "array<string>"
    assert json.dumps(definition)  # plain JSON: readable from any language


def test_describe_lists_user_defined_types(spark, words):
    described = [r["index"] for r in Skipstone.for_path(spark, words).describe().collect()]
    assert described == ["LengthRange(word)", "FirstLetters(word)"]


def test_rule_with_unknown_role_is_rejected_at_build(spark, words):
    @dataclass(frozen=True)
    class Broken(RuleIndex):
        column: str
        kind: ClassVar[str] = "broken_range"
        metadata: ClassVar = (Role("top", "int", "max(length({col}))"),)
        rules: ClassVar = (Rule("length({col}) > {v}", "{tpo} > {v}"),)

    with pytest.raises(SkipstoneError, match=r"rule 0 .*Broken\(word\).*\{tpo\}"):
        Skipstone.for_path(spark, words).build(Broken("word"))


def test_file_changed_after_indexing_is_read(spark, tmp_path):
    root = str(tmp_path / "words")
    os.makedirs(root)
    for i in range(3):
        write_file(root, i, words_table(i))
    Skipstone.for_path(spark, root).build(LengthRange("word"), FirstLetters("word"))
    write_file(root, 0, pa.table({"word": ["q" * 5, "zz"], "n": [0, 1]}))
    rows, stats = run_both_ways(spark, f"SELECT word FROM parquet.`{root}` WHERE length(word) = 5")
    assert sorted(rows) == [("ccccc",)] * 10 + [("qqqqq",)]
    assert stats.per_dataset[0].files_unindexed == 1
    assert stats.files_skipped == 1
    rows, stats = run_both_ways(spark, f"SELECT word FROM parquet.`{root}` WHERE word LIKE 'z%'")
    assert rows == [("zz",)]
    assert stats.files_skipped == 2


def test_refresh_without_the_python_class_keeps_sql_roles(spark, tmp_path):
    from skipstone.indexes.base import _KINDS

    root = str(tmp_path / "words")
    os.makedirs(root)
    for i in range(3):
        write_file(root, i, words_table(i))
    Skipstone.for_path(spark, root).build(LengthRange("word"))
    write_file(root, 3, words_table(3))
    saved = _KINDS.pop("length_range")
    try:
        Skipstone.for_path(spark, root).refresh()
    finally:
        _KINDS["length_range"] = saved
    _, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{root}` WHERE length(word) = 8")
    assert stats.files_skipped == 3
