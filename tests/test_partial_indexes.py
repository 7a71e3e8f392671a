"""Partial indexes (docs/partial-indexes.md): ``CREATE SKIPPING INDEX ... WHERE p`` and
``build(..., where=p)`` summarize only files with a row ``p`` holds for; the other files are
always read, with the reason in the stats. Every query is checked against skipping off."""
from __future__ import annotations

import json
import os
import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import only_dataset, run_both_ways
from datasets import FILES, ROWS, clustered_table, write_clustered, write_file
from skipstone import MinMax, Skipstone, SkipstoneError, ValueList


@pytest.fixture()
def events(tmp_path) -> str:
    """Ten files, file i holding k in [100i, 100i+99]."""
    return write_clustered(str(tmp_path / "events"))


def query(root: str, predicate: str) -> str:
    return f"SELECT k, s FROM parquet.`{root}` WHERE {predicate}"


def index_json(spark, root: str) -> dict:
    """The current version's index.json."""
    return Skipstone.for_path(spark, root)._current()[2]


def metadata_rows(spark, root: str) -> dict[str, dict]:
    """The current version's metadata table, by file name."""
    table_dir = Skipstone.for_path(spark, root)._current()[1]
    return {os.path.basename(r["path"]): r.asDict() for r in spark.read.parquet(table_dir).collect()}


def test_only_files_where_the_predicate_holds_for_a_row_are_indexed(spark, events):
    # file 5 holds 500..599: some of its rows are >= 550, so it is indexed (summarizing all its rows)
    Skipstone.for_path(spark, events).build(MinMax("k"), where="k >= 550")
    rows = metadata_rows(spark, events)
    outside = sorted(name for name, r in rows.items() if r["outside_where"])
    assert outside == [f"part-{i:05d}.parquet" for i in range(5)]
    assert all(rows[name]["minmax_0_min"] is None for name in outside), "files outside keep no summary"
    assert (rows["part-00005.parquet"]["minmax_0_min"], rows["part-00005.parquet"]["minmax_0_max"]) == (500, 599)


def test_files_outside_the_where_are_read_with_the_reason(spark, events):
    Skipstone.for_path(spark, events).build(MinMax("k"), where="k >= 500")
    rows, stats = run_both_ways(spark, query(events, "k = 720"))
    assert [r[0] for r in rows] == [720]
    d = only_dataset(stats)
    assert (d.files_skipped, d.files_outside_where, d.files_unindexed) == (4, 5, 0)
    assert any("5 files outside the partial index's WHERE (k >= 500) were read" in u for u in d.unanswered), d.unanswered
    # a query below the WHERE's range finds no summary to skip with, and still answers right
    rows, stats = run_both_ways(spark, query(events, "k = 120"))
    assert [r[0] for r in rows] == [120] and only_dataset(stats).files_skipped == 5


def test_a_partial_index_answers_like_skipping_off_for_random_predicates(spark, events):
    rng = random.Random(26)
    wheres = ["k >= 450", "k < 300 OR k >= 800", "cat = 'c3' AND k BETWEEN 250 AND 640", "s LIKE 's0%' AND x > 55.5",
              "d >= DATE '2024-03-01'"]
    for where in wheres:
        Skipstone.for_path(spark, events).build(MinMax("k"), MinMax("x"), ValueList("cat"), where=where)
        inside = {name for name, r in metadata_rows(spark, events).items() if not r["outside_where"]}
        for _ in range(6):
            lo = rng.randrange(0, FILES * ROWS)
            predicate = rng.choice([
                f"k BETWEEN {lo} AND {lo + rng.randrange(1, 300)}", f"k = {lo}", f"x > {lo / 10}",
                f"x < {lo / 10} AND cat = 'c{rng.randrange(7)}'", f"k > {lo} OR cat = 'c9'"])
            # x holds NaN, which Parquet footers leave out: Spark's own pushdown is off on both sides
            _, stats = run_both_ways(spark, query(events, predicate), parquet_pushdown=False)
            d = only_dataset(stats)
            assert d.files_outside_where == FILES - len(inside), (where, predicate)
            assert d.files_skipped <= len(inside), (where, predicate)


def test_the_where_shows_in_describe_from_python_and_sql(spark, events):
    ds = Skipstone.for_path(spark, events).build(MinMax("k"), where="k >= 500 AND cat <> 'c1'")
    described = ds.describe().collect()
    assert [(r["index"], r["where"], r["auto_refresh"]) for r in described] == [("MinMax(k)", "k >= 500 AND cat <> 'c1'", None)]
    sql = spark.sql(f"DESCRIBE SKIPPING INDEX ON parquet.`{events}`").collect()
    assert [(r["where"], r["auto_refresh"]) for r in sql] == [("k >= 500 AND cat <> 'c1'", None)]
    assert index_json(spark, events)["where"] == "k >= 500 AND cat <> 'c1'"


def test_sql_creates_a_partial_index(spark, events):
    spark.sql(f"CREATE SKIPPING INDEX ON parquet.`{events}` (MINMAX(k), VALUELIST(cat)) "
              f"WHERE s LIKE '%with%' OR (k >= 900 AND cat IN ('c1', 'c2'))")
    assert index_json(spark, events)["where"] == "s LIKE '%with%' OR (k >= 900 AND cat IN ('c1', 'c2'))"
    _, stats = run_both_ways(spark, query(events, "k = 950"))
    assert (only_dataset(stats).files_outside_where, only_dataset(stats).files_skipped) == (9, 0)


def test_only_a_partial_index_is_written_in_format_version_2(spark, events):
    Skipstone.for_path(spark, events).build(MinMax("k"))
    assert index_json(spark, events)["formatVersion"] == 1 and "where" not in index_json(spark, events)
    Skipstone.for_path(spark, events).build(MinMax("k"), where="k > 10")
    assert index_json(spark, events)["formatVersion"] == 2


def test_refresh_keeps_the_where_and_judges_new_files_by_it(spark, events):
    ds = Skipstone.for_path(spark, events).build(MinMax("k"), where="k >= 500")
    write_file(events, 10, clustered_table(12))  # 1200..1299: inside
    write_file(events, 11, clustered_table(1).set_column(0, "k", pa.array(range(20, 120), pa.int32())))  # outside
    ds.refresh()
    assert index_json(spark, events)["where"] == "k >= 500"
    rows = metadata_rows(spark, events)
    assert rows["part-00010.parquet"]["outside_where"] is False and rows["part-00011.parquet"]["outside_where"] is True
    _, stats = run_both_ways(spark, query(events, "k = 1250"))
    assert (only_dataset(stats).files_skipped, only_dataset(stats).files_outside_where, only_dataset(stats).files_unindexed) == (5, 6, 0)


def test_an_empty_file_is_skipped_not_read_as_outside(spark, events):
    pq.write_table(clustered_table(0).slice(0, 0), os.path.join(events, "part-00099.parquet"))
    Skipstone.for_path(spark, events).build(MinMax("k"), where="k >= 500")
    _, stats = run_both_ways(spark, query(events, "k = 720"))
    assert (only_dataset(stats).files_skipped, only_dataset(stats).files_outside_where) == (5, 5)


@pytest.mark.parametrize("where, message", [
    ("temperature > 3", r"names the column `?temperature`?, which .*events does not have \(its columns: k, x, s"),
    ("k > rand()", r"\(k > rand\(\)\) is not deterministic"),
    ("k + 1", r"is of type int, not a boolean predicate"),
    ("k = = 1", r"is not a SQL expression"),
    ("k > 1 AND", r"is not one SQL predicate: text follows it"),
    ("k IN (SELECT 1)", r"holds a subquery"),
    ("max(k) > 3", r"holds an aggregate function"),
    ("   ", r"is empty"),
])
def test_a_bad_where_is_refused_naming_it(spark, events, where, message):
    with pytest.raises(SkipstoneError, match=r"the WHERE of the partial index on .*events .*" + message):
        Skipstone.for_path(spark, events).build(MinMax("k"), where=where)
    assert not os.path.exists(os.path.join(events, "_skipstone")), "nothing published"


def test_a_where_calling_a_udf_is_refused_naming_the_function(spark, events):
    spark.udf.register("is_late", lambda k: k > 500, "boolean")
    with pytest.raises(SkipstoneError, match=r"WHERE of the partial index .*calls the user-defined function is_late"):
        Skipstone.for_path(spark, events).build(MinMax("k"), where="is_late(k)")


def test_sql_reports_a_bad_where_naming_the_column(spark, events):
    with pytest.raises(Exception, match=r"WHERE of the partial index on .*names the column `?nope`?"):
        spark.sql(f"CREATE SKIPPING INDEX ON parquet.`{events}` (MINMAX(k)) WHERE nope = 1")
    with pytest.raises(Exception, match=r"CREATE SKIPPING INDEX: a predicate expected after WHERE"):
        spark.sql(f"CREATE SKIPPING INDEX ON parquet.`{events}` (MINMAX(k)) WHERE WITH FOOTER KEY 'f'")


def test_the_sql_where_ends_at_a_with_outside_quotes_parentheses_and_comments(spark, events):
    spark.sql(f"CREATE SKIPPING INDEX ON parquet.`{events}` (MINMAX(k)) "
              "WHERE s <> 'a WITH b' /* WITH ( */ AND (k >= 900 OR `cat` = \"WITH\") -- WITH\n"
              "WITH (auto_refresh = false);")
    assert index_json(spark, events)["where"] == \
        "s <> 'a WITH b' /* WITH ( */ AND (k >= 900 OR `cat` = \"WITH\") -- WITH"
    assert "autoRefresh" not in index_json(spark, events)
    _, stats = run_both_ways(spark, query(events, "k = 950"))
    assert (only_dataset(stats).files_outside_where, only_dataset(stats).files_skipped) == (9, 0)


def test_metadata_evaluated_with_spark_reads_the_files_outside_the_where_too(spark, events):
    Skipstone.for_path(spark, events).build(MinMax("k"), ValueList("cat"), where="k >= 500")
    spark._jvm.io.skipstone.Skipstone.clearCache()
    spark.conf.set("spark.skipstone.distributedEvaluation.minFiles", "1")
    try:
        for predicate in ("k = 720", "k = 120", "k IS NULL", "k IS NOT NULL AND cat = 'c3'", "NOT (k < 1000)"):
            _, stats = run_both_ways(spark, query(events, predicate))
            assert only_dataset(stats).files_skipped <= 5, predicate
        _, stats = run_both_ways(spark, query(events, "k = 720"))
        assert only_dataset(stats).files_skipped == 4
        cache = json.loads(spark._jvm.io.skipstone.metadata.MetadataCache.describe())
        assert [v["distributed"] for v in cache["versions"]] == [True]
    finally:
        spark.conf.unset("spark.skipstone.distributedEvaluation.minFiles")
        spark._jvm.io.skipstone.Skipstone.clearCache()
