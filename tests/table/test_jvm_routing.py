"""The JVM routes every row to the block the layout package routes its encoded values to.

Random rows of every kind a layout orders (NULL, NaN and infinities among the doubles,
decimals, dates, timestamps, TIMESTAMP_NTZ wall-clock times inside a daylight-saving gap,
strings missing from the sample's dictionary, booleans), layouts built by ``skipstone.layout``
on a sample of some of them, in a session whose time zone is not UTC. The expected blocks come
from ``layout.route`` over values encoded here in Python, independently of Spark; the actual
ones from ``io.skipstone.layout.LayoutRouting``.
"""
from __future__ import annotations

import datetime as dt
import decimal
import math
from typing import Any

import numpy as np
import pytest

from skipstone.layout import Amoeba, Hilbert, KdTree, Paw, Range, ZOrder
from skipstone.layout.layout import Layout
from skipstone.layout.schema import Column, ColumnKind, LayoutData
from skipstone.layout.tree import Group, GroupSplit, PartitionTree, renumber
from skipstone.table.columns import layout_columns
from skipstone.table.sample import draw_sample
from tests.table.jvm_routing import with_jvm_block

ROWS = 3000
BLOCK_ROWS = 150
SCHEMA = "id INT, i INT, l BIGINT, x DOUBLE, dec DECIMAL(12,3), d DATE, ts TIMESTAMP, tn TIMESTAMP_NTZ, s STRING, b BOOLEAN"
WORKLOAD = [
    {"column": "i", "op": "<", "value": -20},
    {"and": [{"column": "x", "op": ">", "value": 0.5}, {"column": "s", "op": "<", "value": "s10"}]},
    {"column": "tn", "op": ">", "value": "2024-03-10T02:00:00"},
    {"column": "i", "op": "<", "value": -25},
]
SPECS = {
    "amoeba": Amoeba(block_rows=BLOCK_ROWS),
    "kdtree": KdTree(block_rows=BLOCK_ROWS),
    "range": Range(columns=["tn"], block_rows=BLOCK_ROWS),
    "zorder": ZOrder(columns=["i", "x", "tn", "s"], block_rows=BLOCK_ROWS),
    "hilbert": Hilbert(columns=["dec", "ts", "b", "x"], block_rows=BLOCK_ROWS),
    "paw": Paw(queries=WORKLOAD, block_rows=BLOCK_ROWS),
}
EPOCH = dt.datetime(1970, 1, 1)
EPOCH_UTC = EPOCH.replace(tzinfo=dt.timezone.utc)
MICRO = dt.timedelta(microseconds=1)
# Clocks in Los Angeles skip from 02:00 to 03:00 that night: a cast to TIMESTAMP moves these.
DST_GAP = dt.datetime(2024, 3, 10, 2, 0)


def random_rows(seed: int) -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(seed)

    def sometimes_null(value: Any, k: int, every: int) -> Any:
        return None if k % every == 0 else value

    rows = []
    for k in range(ROWS):
        x = float(rng.choice([rng.normal(), math.nan, math.inf, -math.inf, -0.0, 0.5])) if k % 5 == 0 else float(rng.normal())
        rows.append((
            k,
            sometimes_null(int(rng.integers(-30, 30)), k, 11),
            int(rng.integers(-(1 << 62), 1 << 62)),
            sometimes_null(x, k, 13),
            sometimes_null(decimal.Decimal(int(rng.integers(-10**7, 10**7))) / 1000, k, 17),
            sometimes_null(dt.date(2020, 1, 1) + dt.timedelta(days=int(rng.integers(-400, 400))), k, 19),
            EPOCH_UTC + dt.timedelta(days=19_000, microseconds=int(rng.integers(0, 10**11))),
            sometimes_null(DST_GAP + dt.timedelta(microseconds=int(rng.integers(-2 * 3600 * 10**6, 2 * 3600 * 10**6))), k, 23),
            sometimes_null(f"s{int(rng.integers(0, 40))}", k, 7),
            sometimes_null(bool(rng.integers(0, 2)), k, 9),
        ))
    return rows


def encoded(rows: list[tuple[Any, ...]], layout: Layout) -> LayoutData:
    """The rows' values as the layout package encodes them: numbers as floats, days, microseconds
    (wall-clock ones for TIMESTAMP_NTZ), dictionary ranks (half-way between ranks for values
    missing from the dictionary); NULL is -inf, NaN +inf."""
    names = [f.split()[0] for f in SCHEMA.split(", ")]

    def one(v: Any, c: Column) -> float:
        if v is None:
            return -math.inf
        if c.kind is ColumnKind.CATEGORICAL:
            return c.encode_literal(v)
        if isinstance(v, dt.datetime):
            return float((v - (EPOCH_UTC if v.tzinfo else EPOCH)) // MICRO)
        if isinstance(v, dt.date):
            return float((v - EPOCH.date()).days)
        return math.inf if isinstance(v, float) and math.isnan(v) else float(v)

    columns = layout.schema.columns
    return LayoutData(layout.schema, np.array([[one(r[names.index(c.name)], c) for c in columns] for r in rows],
                                              dtype=np.float64))


@pytest.fixture(scope="module")
def los_angeles(spark):
    """The module's session reads and writes wall-clock times in Los Angeles."""
    previous = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    yield
    spark.conf.set("spark.sql.session.timeZone", previous)


@pytest.fixture(scope="module", params=[0, 1, 2], ids=lambda seed: f"seed{seed}")
def table(request, spark, los_angeles) -> tuple[list[tuple[Any, ...]], Any, LayoutData]:
    """Random rows, as a DataFrame, and a sample of some of them, which lacks a few strings."""
    rows = random_rows(request.param)
    df = spark.createDataFrame(rows, SCHEMA)
    types = layout_columns(spark, df.drop("id").schema, "routed")
    some = df.where("s IS NULL OR s NOT IN ('s3', 's17', 's25')")
    sample = draw_sample(some, types, ROWS, 1500, seed=request.param)
    assert not {"s3", "s17", "s25"} & set(sample.schema.columns[list(types).index("s")].categories)
    return rows, df, sample


def assert_the_jvm_routes_as_the_layout(spark: Any, rows: list[tuple[Any, ...]], df: Any, layout: Layout) -> None:
    expected = layout.block_ids[layout.route(encoded(rows, layout))]
    assert len(set(expected.tolist())) > 1, "a layout of one block tests nothing"
    got = dict(with_jvm_block(spark, df, layout).select("id", "block").collect())
    assert len(got) == len(rows)
    wrong = [k for k in range(len(rows)) if got[k] != expected[k]]
    assert not wrong, f"{len(wrong)} of {len(rows)} rows routed elsewhere, e.g. {rows[wrong[0]]}: " \
                      f"JVM block {got[wrong[0]]}, layout block {expected[wrong[0]]}"


@pytest.mark.parametrize("spec", sorted(SPECS))
def test_the_jvm_routes_every_row_to_the_block_the_layout_routes_it_to(spark, table, spec):
    rows, df, sample = table
    assert_the_jvm_routes_as_the_layout(spark, rows, df, SPECS[spec].build(sample, BLOCK_ROWS, float(ROWS)))


def test_a_group_split_sends_each_row_to_the_first_group_holding_it_as_the_layout_does(spark, table):
    """Overlapping boxes bounded on some columns (at sample values, so rows fall on the bounds),
    unbounded on others (where NULL, -inf, lies inside), over a k-d tree as the rest."""
    rows, df, sample = table
    rng = np.random.default_rng(5)
    kd = KdTree(block_rows=BLOCK_ROWS)
    groups = []
    for _ in range(4):
        low, high = np.full(sample.schema.width, -np.inf), np.full(sample.schema.width, np.inf)
        for d in rng.choice(sample.schema.width, size=2, replace=False):
            low[d], high[d] = np.sort(sample.values[rng.integers(0, sample.rows, size=2), d])
        groups.append(Group(tuple(low), tuple(high), kd.build(sample, 4 * BLOCK_ROWS, float(ROWS)).root))
    rest = kd.build(sample, BLOCK_ROWS, float(ROWS)).root
    layout = PartitionTree(sample.schema, renumber(GroupSplit(tuple(groups), rest)))
    assert_the_jvm_routes_as_the_layout(spark, rows, df, layout)
