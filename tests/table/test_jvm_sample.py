"""The table's sample, drawn by the JVM (``LayoutSample``), holds each row as the layout encodes
it: numbers as they are (NaN +inf, NULL -inf), dates as days, timestamps as microseconds,
strings and booleans as ranks in the sample's dictionary, where a string that is not valid
UTF-8 is no category and sits half-way between the ranks around it."""
from __future__ import annotations

import bisect
import datetime as dt
import math
import os
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from skipstone.layout.schema import ColumnKind
from skipstone.table.sample import draw_sample

ROWS = 60
UTC = dt.timezone.utc

# Bytes a string column holds: valid UTF-8 (empty, ASCII, 2-, 3- and 4-byte characters) and bytes
# that are not, as other tools write them: a cut-short sequence, a byte UTF-8 never uses, an
# encoded surrogate, an overlong NUL and a code point past U+10FFFF.
VALID = [b"", b"AIR", b"MAIL", b"a\xc3\xbc", "日本".encode(), b"\xf0\x9f\x98\x80"]
INVALID = [b"\xc3q", b"\xff", b"\xed\xa0\x80", b"\xc0\x80", b"\xf4\x90\x80\x80"]


def string_of(k: int) -> bytes | None:
    choices = VALID + INVALID
    return None if k % 13 == 5 else choices[k % len(choices)]


def row(k: int) -> dict:
    nan_or = (lambda v: math.nan if k % 9 == 0 else v)
    return {
        "k": k,
        "b8": None if k % 11 == 0 else k % 7 - 3,
        "s16": k * 100 - 2000,
        "i32": k * 1000 - 7,
        "i64": 2**53 + 1 if k == 7 else k * 10**12,
        "f32": None if k % 10 == 3 else nan_or(k / 4),
        "f64": [None, -math.inf, math.inf][k % 3] if k % 8 == 0 else nan_or(k * 1.5 - 20),
        "dec": None if k % 12 == 1 else Decimal(k * 1234 - 9999) / 100,
        "d": None if k % 14 == 2 else dt.date(1969, 12, 1) + dt.timedelta(days=k * 3),
        "ts": None if k % 15 == 4 else dt.datetime(1969, 12, 31, 23, tzinfo=UTC) + dt.timedelta(hours=k, microseconds=123_457),
        "s": string_of(k),
        "flag": None if k % 16 == 6 else k % 3 == 0,
    }


def write_rows(root: str) -> list[dict]:
    rows = [row(k) for k in range(ROWS)]
    columns = {name: [r[name] for r in rows] for name in rows[0]}
    table = pa.table({
        "k": pa.array(columns["k"], pa.int64()), "b8": pa.array(columns["b8"], pa.int8()),
        "s16": pa.array(columns["s16"], pa.int16()), "i32": pa.array(columns["i32"], pa.int32()),
        "i64": pa.array(columns["i64"], pa.int64()), "f32": pa.array(columns["f32"], pa.float32()),
        "f64": pa.array(columns["f64"], pa.float64()), "dec": pa.array(columns["dec"], pa.decimal128(10, 2)),
        "d": pa.array(columns["d"], pa.date32()), "ts": pa.array(columns["ts"], pa.timestamp("us", tz="UTC")),
        # a view, not a cast, keeps pyarrow from validating the bytes (as other tools write them)
        "s": pa.array(columns["s"], pa.binary()).view(pa.string()), "flag": pa.array(columns["flag"], pa.bool_()),
    })
    os.makedirs(root)
    pq.write_table(table, os.path.join(root, "part-0.parquet"))
    return rows


@pytest.fixture(scope="module")
def written(spark, tmp_path_factory):
    root = str(tmp_path_factory.mktemp("sample") / "data")
    rows = write_rows(root)
    # TIMESTAMP_NTZ: the same wall clock as ts in UTC (the session's zone in tests)
    df = spark.read.parquet(root).selectExpr("*", "CAST(ts AS TIMESTAMP_NTZ) AS tn")
    return df, rows


def expected_number(name: str, r: dict) -> float:
    v = r["ts" if name == "tn" else name]
    if v is None:
        return -math.inf
    if name == "f32" and not math.isnan(v):
        return float(np.float32(v))
    if name == "d":
        return float((v - dt.date(1970, 1, 1)).days)
    if name in ("ts", "tn"):
        delta = v - dt.datetime(1970, 1, 1, tzinfo=UTC)
        return float((delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds)
    return math.inf if isinstance(v, float) and math.isnan(v) else float(v)


def expected_strings(values: list[bytes | None]) -> tuple[list[str], list[float]]:
    """Python's dictionary: valid UTF-8 sorted by bytes; other bytes half-way between the ranks around them."""
    def valid(b: bytes) -> bool:
        try:
            b.decode("utf-8")
            return True
        except UnicodeDecodeError:
            return False
    keys = sorted({v for v in values if v is not None and valid(v)})
    ranks = [-math.inf if v is None else float(keys.index(v)) if v in keys else bisect.bisect_left(keys, v) - 0.5
             for v in values]
    return [k.decode("utf-8") for k in keys], ranks


NUMBERS = ["k", "b8", "s16", "i32", "i64", "f32", "f64", "dec", "d", "ts", "tn"]


def test_every_column_kind_is_encoded_as_the_layout_encodes_it(written):
    df, rows = written
    sample = draw_sample(df, NUMBERS + ["s", "flag"], ROWS, ROWS)
    assert sample.rows == ROWS
    kinds = {c.name: c.kind for c in sample.schema.columns}
    assert kinds == {"k": ColumnKind.INTEGER, "b8": ColumnKind.INTEGER, "s16": ColumnKind.INTEGER,
                     "i32": ColumnKind.INTEGER, "i64": ColumnKind.INTEGER, "f32": ColumnKind.NUMERIC,
                     "f64": ColumnKind.NUMERIC, "dec": ColumnKind.NUMERIC, "d": ColumnKind.DATE,
                     "ts": ColumnKind.TIMESTAMP, "tn": ColumnKind.TIMESTAMP, "s": ColumnKind.CATEGORICAL,
                     "flag": ColumnKind.CATEGORICAL}
    by_k = {int(k): i for i, k in enumerate(sample.column("k"))}
    assert sorted(by_k) == list(range(ROWS))
    for name in NUMBERS:
        actual = sample.column(name)
        assert [actual[by_k[r["k"]]] for r in rows] == [expected_number(name, r) for r in rows], name


def test_strings_not_valid_utf8_are_no_category_and_sit_between_the_ranks_around_them(written):
    df, rows = written
    sample = draw_sample(df, ["k", "s"], ROWS, ROWS)
    categories, ranks = expected_strings([r["s"] for r in rows])
    assert list(sample.schema.column("s").categories) == categories
    assert "😀" in categories and len(categories) == len(VALID)
    by_k = {int(k): i for i, k in enumerate(sample.column("k"))}
    assert [sample.column("s")[by_k[r["k"]]] for r in rows] == ranks
    assert sum(1 for r in ranks if math.isfinite(r) and r != math.floor(r)) >= len(INVALID)  # no category


def test_booleans_are_categories_false_before_true(written):
    df, rows = written
    sample = draw_sample(df, ["k", "flag"], ROWS, ROWS)
    assert sample.schema.column("flag").categories == (False, True)
    by_k = {int(k): i for i, k in enumerate(sample.column("k"))}
    assert [sample.column("flag")[by_k[r["k"]]] for r in rows] == \
        [-math.inf if r["flag"] is None else float(r["flag"]) for r in rows]


def test_a_sample_smaller_than_the_data_holds_that_many_of_its_rows_and_their_dictionary(spark):
    df = spark.range(3_000).selectExpr("id AS k", "concat('v', id % 500) AS s")
    sample = draw_sample(df, ["k", "s"], 3_000, 200, seed=4)
    assert sample.rows == 200  # Spark's Bernoulli sample of 1.2 x 200 rows, trimmed
    ks = sample.column("k").astype(int)
    assert len(set(ks)) == 200 and all(0 <= k < 3_000 for k in ks)
    categories = sample.schema.column("s").categories
    assert list(categories) == sorted({f"v{k % 500}" for k in ks})
    assert [categories[int(r)] for r in sample.column("s")] == [f"v{k % 500}" for k in ks]
    again = draw_sample(df, ["k", "s"], 3_000, 200, seed=4)
    assert np.array_equal(again.values, sample.values)  # the seed decides the sample


def test_a_column_a_layout_cannot_order_is_refused_by_name(spark):
    df = spark.range(3).selectExpr("id AS k", "array(id) AS a")
    with pytest.raises(Exception, match="layout column 'a' has type array<bigint>"):
        draw_sample(df, ["k", "a"], 3, 3)
