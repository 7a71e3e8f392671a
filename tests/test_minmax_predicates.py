"""MinMax skipping: for every predicate form, identical results and the provable files skipped.

The dataset has 10 files; file i holds k in [100i, 100i+99] and columns that follow k
(see datasets.clustered_table), so the files MinMax can rule out are known by hand.
"""
from __future__ import annotations

import pytest

from conftest import run_both_ways
from datasets import write_clustered
from skipstone import MinMax, Skipstone


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory) -> str:
    root = write_clustered(str(tmp_path_factory.mktemp("minmax") / "events"))
    Skipstone.for_path(spark, root).build(
        MinMax("k"), MinMax("x"), MinMax("s"), MinMax("d"), MinMax("ts"), MinMax("dec"), MinMax("n"),
        MinMax("cat"),
    )
    return root


CASES = [
    # (predicate, files skipped out of 10)
    ("k = 250", 9),
    ("250 = k", 9),
    ("k < 150", 8),
    ("k <= 199", 8),
    ("k > 849", 8),
    ("k >= 900", 9),
    ("900 <= k", 9),
    ("150 > k", 8),
    ("k BETWEEN 310 AND 420", 8),
    ("k IN (5, 777)", 8),
    ("k IN (1000, 2000)", 10),
    ("k IN (0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 850)", 8),  # long list: InSet
    ("k <=> 250", 9),
    ("k < 100 OR k > 899", 8),
    ("NOT (k < 500)", 5),
    ("NOT (k > 100 AND k < 899)", 6),
    ("NOT (k = 250)", 0),
    ("NOT (k IN (5, 777))", 0),
    ("k = 250L", 9),                          # int column widened to bigint
    ("k > 250.5", 2),                         # int column cast to decimal
    ("x > 85.0", 8),                          # file 9 has NaN, which is > 85 in Spark
    ("x < 5", 9),
    ("x IS NULL", 9),
    ("x IS NOT NULL", 0),
    ("n IS NULL", 9),
    ("n IS NOT NULL", 1),
    ("n > 0", 1),                             # all-NULL file can hold no n > 0
    ("s = 's03-007'", 9),
    ("s >= 's08'", 8),
    ("d = DATE'2024-01-25'", 9),
    ("d BETWEEN '2024-02-20' AND '2024-02-21'", 9),
    ("ts > TIMESTAMP'2024-01-01 07:30:00'", 8),
    ("dec > 500.25", 5),
    ("dec = 300.25", 9),
    ("cat = 'c3'", 0),                        # not clustered: nothing provable
    ("abs(k) = 250", 0),                      # no index answers a function of k
    ("k > 800 AND abs(x) > 0", 8),            # the answerable conjunct still skips
    ("k > 800 OR abs(x) > 0", 0),             # an unanswerable disjunct could match anywhere
]


@pytest.mark.parametrize("predicate,skipped", CASES, ids=[c[0] for c in CASES])
def test_predicate_skips_provable_files_with_identical_results(spark, table, predicate, skipped):
    rows, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{table}` WHERE {predicate}")
    assert stats.files_total == 10
    assert stats.files_skipped == skipped
    if skipped == 10:
        assert rows == []


def test_bytes_skipped_are_the_sizes_of_skipped_files(spark, table):
    _, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{table}` WHERE k = 250")
    (dataset,) = stats.per_dataset
    assert dataset.path.endswith("events")
    assert 0 < dataset.bytes_skipped < dataset.bytes_total
    assert stats.bytes_skipped == dataset.bytes_skipped
    assert dataset.rows_skipped == 900   # 9 files of 100 rows


def test_runtime_switch_turns_skipping_off_within_the_session(spark, table):
    spark.conf.set("spark.skipstone.enabled", "false")
    try:
        assert spark.sql(f"SELECT * FROM parquet.`{table}` WHERE k = 250").count() == 1
        assert skipstone_stats(spark).files_skipped == 0
    finally:
        spark.conf.set("spark.skipstone.enabled", "true")
    assert spark.sql(f"SELECT * FROM parquet.`{table}` WHERE k = 250").count() == 1
    assert skipstone_stats(spark).files_skipped == 9


def skipstone_stats(spark):
    import skipstone

    return skipstone.last_query_stats(spark)
