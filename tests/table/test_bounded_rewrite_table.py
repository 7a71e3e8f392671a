"""BoundedRewrite as a managed table runs it: optimized again and again while the workload moves
from one column to another, every version keeps every row and every answer is plain Spark's on
the original data; and a bounded rewrite killed between its steps loses nothing.

The table: 4,000 rows of a (the order they came in), b and c (two shuffles of it), v; a k-d
tree of 16 blocks of 250 rows cut on a, so that a range on b or c reads every block for a few of
its rows. The policy rewrites units of at most a quarter of the table and, priced in rows with
c = 1, buys one after two or three queries."""
from __future__ import annotations

import os

import pytest

from skipstone import Skipstone
from skipstone.layout import BoundedRewrite, KdTree, RowsRead
from skipstone.table import failpoints
from skipstone.table.failpoints import SimulatedCrash
from tests.table.table_copies import local_path, table_fixtures
from tests.table.table_data import as_multiset

ROWS = 4000
PHASES = (("b", (100, 1700, 2900, 600, 2200, 3300, 900, 1500, 2500)),
          ("c", (300, 2100, 3500, 1200, 2700, 500, 1800, 3100, 800)))


def original(spark):
    """The rows, built without the table."""
    return spark.range(ROWS).selectExpr("id AS a", f"id * 7919 % {ROWS} AS b", f"id * 104729 % {ROWS} AS c", "id AS v")


def predicate(column: str, low: int) -> str:
    return f"{column} BETWEEN {low} AND {low + 150}"


def policy(t) -> BoundedRewrite:
    quarter = sum(f.size for f in t.current().files) / 4
    return BoundedRewrite(window=20, budget_bytes=quarter, write_multiplier=1.0, cost_model=RowsRead())


created, table = table_fixtures("bounded", original,
                                KdTree(block_rows=250, columns=["a"]))


def answer(df, where: str):
    return as_multiset(df.where(where))


def test_repeated_bounded_rewrites_under_a_moving_workload_keep_rows_and_answers(spark, table):
    expected_rows = as_multiset(original(spark))
    rewrites = []
    for column, lows in PHASES:
        for k, low in enumerate(lows):
            where = predicate(column, low)
            assert answer(table.read(), where) == answer(original(spark), where), f"{where} at version {table.version}"
            if k % 3 == 2:
                result = table.optimize(policy(table))
                if result is not None:
                    assert result.strategy == "layout"
                    rewrites.append((column, result.version, result.rows_rewritten))
    assert {column for column, _, _ in rewrites} == {"b", "c"}, f"a phase paid for no unit: {rewrites}"
    assert all(rows <= ROWS / 4 for _, _, rows in rewrites)  # bounded: at most the budget's quarter
    for version in range(1, table.version + 1):
        assert as_multiset(table.read(version=version)) == expected_rows, f"version {version} lost or added rows"
    for column, lows in PHASES:
        for low in lows:
            assert answer(table.read(), predicate(column, low)) == answer(original(spark), predicate(column, low))
    history = [r for r in table.history().collect() if r.strategy == "layout"]
    assert [r.policy for r in history] == ["BoundedRewrite"] * len(rewrites)
    assert all(r.benefit >= r.cost for r in history)  # each bought once its regret reached its cost


def queried(spark, t) -> None:
    """Enough queries on b for the policy to buy a unit."""
    for low in PHASES[0][1][:4]:
        t.read().where(predicate("b", low)).count()


@pytest.mark.parametrize("step", ["optimize.afterWrite", "optimize.afterMetadata", "optimize.afterCommit"])
def test_a_bounded_rewrite_killed_after_each_step_loses_nothing(spark, table, step):
    queried(spark, table)
    before = table.version
    failpoints.arm(spark, step)
    with pytest.raises(SimulatedCrash):
        table.optimize(policy(table))
    committed = step == "optimize.afterCommit"
    assert table.version == before + (1 if committed else 0)
    reopened = Skipstone.for_path(spark, table.root)
    assert as_multiset(reopened.read()) == as_multiset(original(spark))
    for column, lows in PHASES:
        assert answer(reopened.read(), predicate(column, lows[0])) == answer(original(spark), predicate(column, lows[0]))
    again = reopened.optimize(policy(reopened))  # the next optimize works
    if not committed:
        assert again is not None and again.strategy == "layout"  # it buys the unit the killed one did not commit
    assert again is None or again.strategy == "layout"
    reopened.vacuum(retention_hours=0, force=True)
    assert as_multiset(reopened.read()) == as_multiset(original(spark))
    on_disk = {n for n in os.listdir(local_path(reopened.root)) if n.endswith(".parquet")}
    assert on_disk == {f.path for f in reopened.current().files}
