"""The user-written layout spec of docs/layout.md ("A layout spec of your own"), run as
printed on a real managed table: one small file is the whole extension."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from skipstone.layout import PartitionTree, Split, layout_spec_from_json

DOC = Path(__file__).resolve().parents[2] / "docs" / "layout.md"


def doc_example() -> str:
    section = DOC.read_text().split("### A layout spec of your own", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.fixture(scope="module")
def example(spark) -> dict:
    # run as a reader's script or notebook runs it (__main__), as the doc test (tests/docs) runs the
    # same page in this process: the spec registry takes a class again only under the same name
    namespace = {"__name__": "__main__", "spark": spark}
    exec(compile(doc_example(), str(DOC), "exec"), namespace)
    return namespace


def test_the_table_is_laid_out_by_the_user_spec(example):
    tree = example["t"].tree()
    assert isinstance(tree, PartitionTree) and isinstance(tree.root, Split)
    assert {tree.schema.columns[s.column].name for s in _splits(tree.root)} == {"day"}
    assert tree.block_count == 4
    assert example["t"].files().count() == 4


def test_the_table_holds_every_row_once(example, spark):
    table = spark.read.parquet(example["t"].root)
    per_day = {r.day: r["count"] for r in table.groupBy("day").count().collect()}
    assert per_day == {day: 28 if day < 10_000 % 365 else 27 for day in range(365)}


def test_a_range_on_the_bucketed_column_reads_one_file_and_every_matching_row(example):
    read = example["read"]
    assert (read.files_total, read.files_total - read.files_skipped) == (4, 1)
    assert example["rows"] == example["sales"].where("day < 30").count() == 840


def test_the_stored_spec_reads_back_through_the_registry(example):
    stored = layout_spec_from_json(example["t"].properties()["layout.spec"])
    assert stored == example["EqualWidth"](columns=["day"], block_rows=2_500)


def _splits(node) -> list[Split]:
    if not isinstance(node, Split):
        return []
    return [node] + _splits(node.left) + _splits(node.right)
