"""BloomFilter and Hybrid skipping: `=`, `<=>` and `IN` by hashed lookup, across types and casts.

Six files of 50 rows. Files 0-3 hold k = 100i .. 100i+49 (50 distinct values), file 4 only
k = 450, file 5 k = 500..509 and five NULLs. The other columns follow k: s = 'user-<k>',
x = k/4 (NaN in some rows of file 3), dec = k + 0.25, d = 2020-01-01 plus k days; h is a copy
of k indexed by Hybrid(threshold=20), which lists the values of files 4 and 5 and keeps bloom
filters for files 0-3. With 50 values in filters sized for 10,000, false positives do not
occur, so the counts below are exact.
"""
from __future__ import annotations

import datetime as dt
import decimal

import pyarrow as pa
import pytest

from conftest import metadata_table_dir, run_both_ways
from datasets import write_tables
from skipstone import BloomFilter, Hybrid, Skipstone


def keys(file: int) -> list[int | None]:
    if file < 4:
        return [100 * file + j for j in range(50)]
    if file == 4:
        return [450] * 50
    return [500 + j % 10 if j < 45 else None for j in range(50)]


def day(k: int) -> dt.date:
    return dt.date(2020, 1, 1) + dt.timedelta(days=k)


def table_of(file: int) -> pa.Table:
    k = keys(file)
    x = [None if v is None else (float("nan") if file == 3 and v % 10 == 0 else v / 4) for v in k]
    return pa.table({
        "k": pa.array(k, pa.int32()),
        "h": pa.array(k, pa.int32()),
        "s": pa.array([None if v is None else f"user-{v}" for v in k]),
        "x": pa.array(x, pa.float64()),
        "dec": pa.array([None if v is None else decimal.Decimal(v) + decimal.Decimal("0.25") for v in k],
                        pa.decimal128(10, 2)),
        "d": pa.array([None if v is None else day(v) for v in k]),
    })


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory) -> str:
    root = write_tables(str(tmp_path_factory.mktemp("bloom") / "users"), [table_of(i) for i in range(6)])
    Skipstone.for_path(spark, root).build(
        BloomFilter("k"), BloomFilter("s", fpp=0.001), BloomFilter("x"), BloomFilter("dec"), BloomFilter("d"),
        Hybrid("h", threshold=20),
    )
    return root


IN_SET = ", ".join(str(v) for v in [*range(10), *range(300, 310)])

CASES = [
    # (predicate, files skipped out of 6)
    ("k = 225", 5),                          # file 2 holds 200..249
    ("225 = k", 5),
    ("k = 260", 6),                          # between file 2's values and file 3's
    ("k IN (5, 225)", 4),
    (f"k IN ({IN_SET})", 4),                 # InSet: files 0 and 3
    ("k = 225L", 5),                         # CAST(k AS BIGINT): one int casts to 225
    ("k = 225.0", 5),                        # k cast to decimal
    ("CAST(k AS DOUBLE) = 225.0D", 5),
    ("k <=> 225", 5),
    ("NOT (k <=> 225)", 0),
    ("k <> 450", 0),                         # a filter cannot prove all values equal 450
    ("k NOT IN (450)", 0),
    ("k IS NULL", 5),
    ("k IS NOT NULL", 0),
    ("k = 225 OR k = 450", 4),
    ("k = 225 AND s = 'user-225'", 5),
    ("k > 300", 0),                          # ranges are not a bloom filter's business
    ("k = 504", 5),
    ("s = 'user-225'", 5),
    ("s IN ('user-5', 'user-450')", 4),
    ("s = 'nobody'", 6),
    ("x = 56.25", 5),                        # k = 225
    ("x = CAST('NaN' AS DOUBLE)", 5),        # NaN = NaN in Spark: file 3
    ("x = 0.0", 5),                          # k = 0
    ("x = -0.0", 5),                         # -0.0 = 0.0
    ("dec = 225.25", 5),
    ("dec = 225.250", 5),                    # another scale, same value
    ("dec IN (0.25, 450.25)", 4),
    (f"d = DATE'{day(225)}'", 5),
    (f"d = TIMESTAMP'{day(225)} 00:00:00'", 5),   # d cast to timestamp: midnight has a date
    ("h = 225", 5),                          # filter of file 2
    ("h = 260", 6),
    ("h <> 450", 1),                         # file 4 lists only 450
    ("h > 505", 1),                          # listed file 4 has no such value; filters cannot tell
    ("h IN (450, 505)", 4),
    ("h LIKE '45%'", 1),                     # file 5's list rules it out
    ("h IS NULL", 5),
]


@pytest.mark.parametrize("predicate,skipped", CASES, ids=[c[0] for c in CASES])
def test_bloom_and_hybrid_skip_files_without_the_value(spark, table, predicate, skipped):
    # Spark's own Parquet pushdown drops -0.0/0.0 row groups wrongly: keep it out of the way.
    rows, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{table}` WHERE {predicate}", parquet_pushdown=False)
    assert stats.files_total == 6
    assert stats.files_skipped == skipped
    if skipped == 6:
        assert rows == []


def test_hybrid_lists_small_files_and_filters_large_ones(spark, table):
    meta = spark.read.parquet(metadata_table_dir(spark, table)).orderBy("path")
    listed = [(r[0] is not None, r[1] is not None) for r in meta.select("hybrid_5_values", "hybrid_5_bloom").collect()]
    assert listed == [(False, True)] * 4 + [(True, False)] * 2


def test_bloom_filter_settings_are_validated():
    from skipstone import SkipstoneError

    with pytest.raises(SkipstoneError, match="fpp"):
        BloomFilter("k", fpp=1.5)
    with pytest.raises(SkipstoneError, match="threshold"):
        Hybrid("k", threshold=0)
