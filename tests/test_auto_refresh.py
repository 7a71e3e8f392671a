"""Automatic refresh (docs/partial-indexes.md): with ``auto_refresh`` on, a query that lists
files the metadata lacks indexes them (at most ``max_files``, waiting at most ``max_seconds``)
and publishes a new version; files not indexed yet are read. Off by default. Every query is
checked against skipping off."""
from __future__ import annotations

import threading

import pyarrow as pa
import pytest

from conftest import normalized, only_dataset, run_both_ways
from datasets import clustered_table, write_clustered, write_file
from skipstone import MinMax, Skipstone, SkipstoneError


@pytest.fixture()
def events(tmp_path) -> str:
    """Ten files, file i holding k in [100i, 100i+99]."""
    return write_clustered(str(tmp_path / "events"))


def query(root: str, predicate: str) -> str:
    return f"SELECT k FROM parquet.`{root}` WHERE {predicate}"


def version(spark, root: str) -> int:
    return Skipstone.for_path(spark, root)._current()[0]


def await_refreshes(spark) -> None:
    spark._jvm.io.skipstone.query.AutoRefresher.awaitAll(120.0)


def append(root: str, i: int, first_k: int) -> None:
    """File ``part-i`` holding k in [first_k, first_k + 99]."""
    write_file(root, i, clustered_table(0).set_column(0, "k", pa.array(range(first_k, first_k + 100), pa.int32())))


def test_auto_refresh_is_off_by_default(spark, events):
    Skipstone.for_path(spark, events).build(MinMax("k"))
    before = version(spark, events)
    append(events, 10, 7000)
    for _ in range(2):
        _, stats = run_both_ways(spark, query(events, "k = 7005"))
        assert only_dataset(stats).files_unindexed == 1
    await_refreshes(spark)
    assert version(spark, events) == before
    assert Skipstone.for_path(spark, events).describe().collect()[0]["auto_refresh"] is None


def test_a_query_indexes_new_files_and_the_next_query_skips_them(spark, events):
    Skipstone.for_path(spark, events).build(MinMax("k"), auto_refresh=True)  # max_seconds 0: no waiting
    before = version(spark, events)
    append(events, 10, 7000)
    rows, stats = run_both_ways(spark, query(events, "k = 5"))
    assert rows == [(5,)]
    assert only_dataset(stats).files_unindexed == 1, "the query that finds the new file reads it"
    assert any("1 new files were read while an automatic refresh indexes them" in u for u in only_dataset(stats).unanswered)
    await_refreshes(spark)
    assert version(spark, events) == before + 1
    _, stats = run_both_ways(spark, query(events, "k = 5"))
    assert (only_dataset(stats).files_skipped, only_dataset(stats).files_unindexed) == (10, 0)
    await_refreshes(spark)
    assert version(spark, events) == before + 1, "nothing new: no further refresh"


def test_a_query_that_may_wait_skips_with_the_refresh_it_started(spark, events):
    Skipstone.for_path(spark, events).build(MinMax("k"), auto_refresh={"max_seconds": 120})
    append(events, 10, 7000)
    rows, stats = run_both_ways(spark, query(events, "k = 5"))
    assert rows == [(5,)]
    assert (only_dataset(stats).files_skipped, only_dataset(stats).files_unindexed) == (10, 0)
    assert any("found 1 new files and skipped with metadata version" in u for u in only_dataset(stats).unanswered)


def test_one_refresh_indexes_at_most_max_files(spark, events):
    Skipstone.for_path(spark, events).build(MinMax("k"), auto_refresh={"max_files": 2, "max_seconds": 120})
    for i in range(3):
        append(events, 10 + i, 7000 + 100 * i)
    _, stats = run_both_ways(spark, query(events, "k = 5"))
    assert (only_dataset(stats).files_skipped, only_dataset(stats).files_unindexed) == (11, 1)
    _, stats = run_both_ways(spark, query(events, "k = 5"))
    assert (only_dataset(stats).files_skipped, only_dataset(stats).files_unindexed) == (12, 0)


def test_auto_refresh_of_a_partial_index_marks_new_files_outside_its_where(spark, events):
    Skipstone.for_path(spark, events).build(MinMax("k"), where="k >= 500", auto_refresh={"max_seconds": 120})
    append(events, 10, 7000)   # inside
    append(events, 11, 20)     # outside
    _, stats = run_both_ways(spark, query(events, "k = 7005"))
    assert (only_dataset(stats).files_skipped, only_dataset(stats).files_outside_where, only_dataset(stats).files_unindexed) == (5, 6, 0)
    settled = version(spark, events)
    run_both_ways(spark, query(events, "k = 7005"))
    await_refreshes(spark)
    assert version(spark, events) == settled, "files outside the WHERE are known: no refresh for them"


def test_the_settings_show_in_describe_and_survive_a_refresh(spark, events):
    ds = Skipstone.for_path(spark, events).build(MinMax("k"), auto_refresh={"max_files": 7, "max_seconds": 2.5})
    shown = "auto_refresh_max_files = 7, auto_refresh_max_seconds = 2.5"
    assert ds.describe().collect()[0]["auto_refresh"] == shown
    ds.refresh()
    assert spark.sql(f"DESCRIBE SKIPPING INDEX ON parquet.`{events}`").collect()[0]["auto_refresh"] == shown


def test_sql_turns_auto_refresh_on(spark, events):
    spark.sql(f"CREATE SKIPPING INDEX ON parquet.`{events}` (MINMAX(k)) WHERE k >= 200 "
              "WITH (auto_refresh = true, auto_refresh_max_seconds = 120)")
    append(events, 10, 7000)
    _, stats = run_both_ways(spark, query(events, "k = 7005"))
    assert (only_dataset(stats).files_skipped, only_dataset(stats).files_unindexed) == (8, 0)


@pytest.mark.parametrize("options, message", [
    ("auto_refresh = true, auto_refresh_max_files = 0", r"option 'auto_refresh_max_files' is a whole number >= 1, not '0'"),
    ("auto_refresh = maybe", r"option 'auto_refresh' is true or false, not 'maybe'"),
    ("refresh_often = true", r"has no option 'refresh_often' \(it takes auto_refresh, auto_refresh_max_files"),
    ("auto_refresh_max_seconds = 3", r"sets auto_refresh_max_seconds without auto_refresh = true"),
])
def test_sql_refuses_bad_auto_refresh_options_naming_them(spark, events, options, message):
    with pytest.raises(Exception, match=r"CREATE SKIPPING INDEX ON parquet.`.*events` WITH \(...\) " + message):
        spark.sql(f"CREATE SKIPPING INDEX ON parquet.`{events}` (MINMAX(k)) WITH ({options})")


def test_python_refuses_unknown_auto_refresh_settings(spark, events):
    with pytest.raises(SkipstoneError, match=r"auto_refresh has no setting 'often'"):
        Skipstone.for_path(spark, events).build(MinMax("k"), auto_refresh={"often": 1})
    with pytest.raises(SkipstoneError, match=r"automatic refresh of .*events option 'auto_refresh_max_seconds' is a number"):
        Skipstone.for_path(spark, events).build(MinMax("k"), auto_refresh={"max_seconds": -1})


def test_concurrent_queries_with_auto_refresh_answer_right_and_leave_consistent_metadata(spark, events):
    Skipstone.for_path(spark, events).build(MinMax("k"), auto_refresh={"max_files": 3, "max_seconds": 1})
    expected = {}
    for i in range(6):
        append(events, 10 + i, 7000 + 100 * i)
    predicates = [f"k BETWEEN {7000 + 37 * j} AND {7050 + 37 * j}" for j in range(8)]
    spark.conf.set("spark.skipstone.enabled", "false")
    for p in predicates:
        expected[p] = normalized(spark.sql(query(events, p)).collect())
    spark.conf.set("spark.skipstone.enabled", "true")
    failures: list[BaseException] = []

    def run(mine: list[str]) -> None:
        try:
            for p in mine:
                assert normalized(spark.sql(query(events, p)).collect()) == expected[p], p
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            failures.append(e)

    threads = [threading.Thread(target=run, args=(predicates[t::2],)) for t in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    await_refreshes(spark)
    # every version published is whole, and the newest describes each file once
    table_dir = Skipstone.for_path(spark, events)._current()[1]
    paths = [r["path"] for r in spark.read.parquet(table_dir).select("path").collect()]
    assert len(paths) == len(set(paths))
    for _ in range(3):  # whatever the races left unindexed, later queries index
        run_both_ways(spark, query(events, "k = 7005"))
        await_refreshes(spark)
    _, stats = run_both_ways(spark, query(events, "k = 7005"))
    assert (only_dataset(stats).files_unindexed, only_dataset(stats).files_skipped) == (0, 15)
