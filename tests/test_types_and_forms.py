"""Every index kind on every column type, the predicate forms MinMax gained, and freshness.

Four files of four rows; in file i each column holds two values derived from 10i and 10i+1
(file 3 has NULLs in its last two rows, and NaN instead of 31 in ``dbl``). So ``c = <value of
file 2>`` can skip 3 files under every kind, and ``c >= <value of file 3>`` 3 files under the
kinds that know ranges (MinMax, ValueList, GapList); bloom filters cannot tell ranges.
"""
from __future__ import annotations

import datetime as dt
import decimal
import os

import pyarrow as pa
import pytest

from conftest import run_both_ways
from datasets import write_file, write_tables
from skipstone import BloomFilter, GapList, Hybrid, MinMax, Prefix, Skipstone, Suffix, ValueList

ROWS = 4


def base(file: int) -> list[int | None]:
    values = [10 * file, 10 * file + 1] * 2
    return values[:2] + [None, None] if file == 3 else values


def column(values: list[int | None], convert, arrow_type) -> pa.Array:
    return pa.array([None if v is None else convert(v) for v in values], arrow_type)


def table_of(file: int) -> pa.Table:
    v = base(file)
    day, hour = dt.date(2024, 1, 1), dt.datetime(2024, 1, 1)
    dbl = [float("nan") if x == 31 else x for x in v]
    flags = [[True] * 4, [False] * 4, [True, False] * 2, [True, True, None, None]][file]
    return pa.table({
        "b": column(v, int, pa.int8()),
        "sh": column(v, int, pa.int16()),
        "i": column(v, int, pa.int32()),
        "l": column(v, int, pa.int64()),
        "f": column(v, float, pa.float32()),
        "dbl": column(dbl, float, pa.float64()),
        "dec": column(v, lambda x: decimal.Decimal(x) + decimal.Decimal("0.25"), pa.decimal128(10, 2)),
        "str": column(v, lambda x: f"v{x // 10}{'ab'[x % 10]}", pa.string()),
        "dt": column(v, lambda x: day + dt.timedelta(days=x), pa.date32()),
        "ts": column(v, lambda x: hour + dt.timedelta(hours=x), pa.timestamp("us", tz="UTC")),
        "ntz": column(v, lambda x: hour + dt.timedelta(hours=x), pa.timestamp("us")),
        "flag": pa.array(flags, pa.bool_()),
        "st": pa.array([{"a": {"b": x}} for x in v], pa.struct([("a", pa.struct([("b", pa.int32())]))])),
    })


# column -> (SQL constant for the value 20 (file 2), for 30 (file 3))
CONSTANTS = {
    "b": ("20", "30"),
    "l": ("20", "30"),
    "f": ("20.0", "30.0"),                       # f is cast to double to meet a decimal
    "dbl": ("20.0D", "30.0D"),
    "dec": ("20.25", "30.250"),                  # another scale than the column's
    "str": ("'v2a'", "'v3a'"),
    "dt": ("DATE'2024-01-21'", "TIMESTAMP'2024-01-31 00:00:00'"),  # dt cast to timestamp
    "ts": ("TIMESTAMP'2024-01-01 20:00:00'", "TIMESTAMP'2024-01-02 06:00:00'"),
    "ntz": ("TIMESTAMP_NTZ'2024-01-01 20:00:00'", "TIMESTAMP_NTZ'2024-01-02 06:00:00'"),
    "st.a.b": ("20", "30"),
}
RANGE_TYPES = [c for c in CONSTANTS if c != "str"]
EXTRA_COLUMNS = ["sh", "i", "flag"]
KINDS = {
    "minmax": lambda c: MinMax(c),
    "valuelist": lambda c: ValueList(c),
    "bloomfilter": lambda c: BloomFilter(c),
    "hybrid": lambda c: Hybrid(c, threshold=1),   # two values per file: every file gets a filter
    "gaplist": lambda c: GapList(c, gaps=2),
}
KNOWS_RANGES = {"minmax", "valuelist", "gaplist"}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> str:
    return write_tables(str(tmp_path_factory.mktemp("types") / "typed"), [table_of(i) for i in range(4)])


@pytest.fixture(scope="module", params=list(KINDS))
def kind(request, spark, root) -> str:
    columns = [*RANGE_TYPES, "sh", "i"] if request.param == "gaplist" else [*CONSTANTS, *EXTRA_COLUMNS]
    Skipstone.for_path(spark, root).build(*(KINDS[request.param](c) for c in columns))
    return request.param


def skipped(spark, root: str, predicate: str) -> int:
    # Spark's own Parquet pushdown drops NaN rows of `dbl >= c`: keep it out of the way.
    rows, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{root}` WHERE {predicate}", parquet_pushdown=False)
    assert stats.files_total == 4
    return stats.files_skipped


@pytest.mark.parametrize("col", list(CONSTANTS))
def test_equality_skips_all_other_files_for_every_type(spark, root, kind, col):
    if kind == "gaplist" and col not in RANGE_TYPES:
        pytest.skip("GapList indexes numbers, dates and timestamps")
    assert skipped(spark, root, f"{col} = {CONSTANTS[col][0]}") == 3


@pytest.mark.parametrize("col", RANGE_TYPES + ["str"])
def test_range_skips_files_below_it_for_kinds_that_order(spark, root, kind, col):
    if kind not in KNOWS_RANGES or (kind == "gaplist" and col not in RANGE_TYPES):
        pytest.skip(f"{kind} does not index ranges of {col}")
    assert skipped(spark, root, f"{col} >= {CONSTANTS[col][1]}") == 3


FORMS = [
    # (predicate, {kind: files skipped}; kinds not named skip 0)
    ("sh IN (0, 20)", {"minmax": 2, "valuelist": 2, "bloomfilter": 2, "hybrid": 2, "gaplist": 2}),
    ("20 = i", {"minmax": 3, "valuelist": 3, "bloomfilter": 3, "hybrid": 3, "gaplist": 3}),
    ("i <=> 20", {"minmax": 3, "valuelist": 3, "bloomfilter": 3, "hybrid": 3, "gaplist": 3}),
    ("i IS NULL", {"minmax": 3, "valuelist": 3, "bloomfilter": 3, "hybrid": 3, "gaplist": 3}),
    ("dbl = CAST('NaN' AS DOUBLE)", {"minmax": 3, "valuelist": 3, "bloomfilter": 3, "hybrid": 3, "gaplist": 3}),
    # Spark turns `flag = false` into `NOT flag`; all-true files 0 and 3 hold no FALSE row.
    # Hybrid(threshold=1) lists files 0, 1 and 3 (one distinct value each).
    ("flag = false", {"minmax": 2, "valuelist": 2, "hybrid": 2}),
    ("flag", {"minmax": 1, "valuelist": 1, "bloomfilter": 1, "hybrid": 1}),  # file 1 is all false
    ("str LIKE 'v2%'", {"minmax": 3, "valuelist": 3}),
    ("startswith(str, 'v1')", {"minmax": 3, "valuelist": 3}),
    ("str LIKE 'v2%b'", {"minmax": 3, "valuelist": 3}),   # MinMax uses the literal prefix
    ("str LIKE 'v2a'", {"minmax": 3, "valuelist": 3, "bloomfilter": 3, "hybrid": 3}),  # no wildcard: =
    ("NOT str LIKE 'v%'", {"minmax": 4, "valuelist": 4}),  # every value starts with v
    ("st.a.b BETWEEN 15 AND 25", {"minmax": 3, "valuelist": 3, "gaplist": 3}),
]


@pytest.mark.parametrize("predicate,expected", FORMS, ids=[f[0] for f in FORMS])
def test_predicate_forms_under_every_kind(spark, root, kind, predicate, expected):
    if kind == "gaplist" and ("str" in predicate or "flag" in predicate):
        pytest.skip("GapList indexes numbers, dates and timestamps")
    assert skipped(spark, root, predicate) == expected.get(kind, 0)


ALL_KINDS = [MinMax("k"), ValueList("cat"), BloomFilter("s"), Hybrid("k2", threshold=5), Prefix("s", 3),
             Suffix("s2", 3), GapList("g")]


def test_file_changed_after_indexing_is_read_under_every_kind(spark, tmp_path):
    def table(i: int, shift: int = 0) -> pa.Table:
        k = [100 * i + j + shift for j in range(ROWS)]
        return pa.table({"k": k, "k2": k, "g": k, "cat": [f"c{v}" for v in k], "s": [f"s{v}" for v in k],
                         "s2": [f"s{v}" for v in k]})
    data = write_tables(str(tmp_path / "changing"), [table(i) for i in range(3)])
    Skipstone.for_path(spark, data).build(*ALL_KINDS)
    write_file(data, 1, table(1, shift=5000))        # file 1 now holds 5100.., bigger than before
    assert os.path.exists(os.path.join(data, "part-00001.parquet"))
    for predicate in ["k = 5101", "cat = 'c5101'", "s = 's5101'", "k2 = 5101", "s LIKE 's5101%'",
                      "s2 LIKE '%101'", "g > 5100 AND g < 5102"]:
        rows, stats = run_both_ways(spark, f"SELECT k FROM parquet.`{data}` WHERE {predicate}")
        assert rows == [(5101,)], predicate
        assert stats.per_dataset[0].files_unindexed == 1, predicate
        assert stats.files_skipped == 2, predicate
