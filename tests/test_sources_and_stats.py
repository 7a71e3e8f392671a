"""Other file formats, schema changes between indexing and query, and per-index statistics."""
from __future__ import annotations

import pytest

from conftest import run_both_ways
from datasets import write_clustered
from skipstone import MinMax, Skipstone


@pytest.fixture(scope="module")
def events(spark, tmp_path_factory) -> str:
    return write_clustered(str(tmp_path_factory.mktemp("sources") / "events"), files=6)


def rewrite(spark, events: str, target: str, fmt: str, **options: str) -> None:
    (spark.read.parquet(events).select("k", "s", "d").repartitionByRange(6, "k")
     .write.format(fmt).options(**options).save(target))


@pytest.mark.parametrize("fmt", ["orc", "json", "csv"])
def test_other_file_formats_skip_with_identical_results(spark, events, tmp_path, fmt):
    target = str(tmp_path / fmt)
    options = {"header": "true"} if fmt == "csv" else {}
    rewrite(spark, events, target, fmt, **options)
    read_options = {"header": "true", "inferSchema": "true"} if fmt == "csv" else {}
    Skipstone.for_path(spark, target, format=fmt, options=read_options).build(MinMax("k"))
    reader = spark.read.format(fmt).options(**read_options)
    reader.load(target).createOrReplaceTempView(f"events_{fmt}")
    rows, stats = run_both_ways(spark, f"SELECT k, s FROM events_{fmt} WHERE k BETWEEN 120 AND 130")
    assert [r[0] for r in rows] == list(range(120, 131))
    assert stats.files_total == 6 and stats.files_skipped == 5


def test_index_is_ignored_when_query_reads_column_with_another_type(spark, events, tmp_path):
    target = str(tmp_path / "typed_csv")
    rewrite(spark, events, target, "csv", header="true")
    Skipstone.for_path(spark, target, format="csv", options={"header": "true", "inferSchema": "true"}
                       ).build(MinMax("k"))
    # read without type inference: k is a string here, ordered differently from the indexed ints
    spark.read.option("header", "true").csv(target).createOrReplaceTempView("untyped")
    rows, stats = run_both_ways(spark, "SELECT k FROM untyped WHERE k > '95'")
    assert ("96",) in rows and ("100",) not in rows
    assert stats.files_skipped == 0


def test_stats_say_which_index_ruled_out_files_and_what_no_index_used(spark, events):
    Skipstone.for_path(spark, events).build(MinMax("k"), MinMax("d"))
    _, stats = run_both_ways(
        spark, f"SELECT * FROM parquet.`{events}` WHERE k < 250 AND d >= DATE'2024-01-21' AND upper(s) = 'X'")
    (dataset,) = stats.per_dataset
    # k < 250 keeps files 0-2; d >= Jan 21 keeps files 2-5; together only file 2 is read
    assert stats.files_skipped == 5
    assert dataset.skipped_by_index == {"MinMax(k)": 3, "MinMax(d)": 2}
    assert dataset.unanswered == ("(upper(s) = 'X')",)
