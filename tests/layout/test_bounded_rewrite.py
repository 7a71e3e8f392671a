"""BoundedRewrite: bounded rewrite units and the rent-or-buy trigger, on trees small enough to
price by hand (RowsRead: a query pays the rows of the blocks it reads, a rewrite c x its rows)."""
from __future__ import annotations

import numpy as np
import pytest

from skipstone.layout import (BoundedRewrite, LayoutChange, LayoutData, Leaf, PartitionTree, Query, RowsRead,
                              SparkCost, Split, build_curve_layout, build_kd_tree, build_paw_tree)
from skipstone.layout.bounded.regret import AccountedQueries, CurrentReads

# 800 rows: x = 0..7 (100 rows each), y = 0..99 (8 rows each)
DATA = LayoutData.from_columns({"x": np.repeat(np.arange(8.0), 100), "y": np.tile(np.arange(100.0), 8)})
X, Y = 0, 1
# two blocks of 400 rows cut on y: the queries below filter x, so they read both
TWO_BLOCKS = PartitionTree(DATA.schema, Split(Y, 49.0, Leaf(0, 400.0), Leaf(1, 400.0)))
ON_X = Query.from_json({"column": "x", "op": "<=", "value": 1}, DATA.schema)  # 200 rows, 100 in each block
ON_Y = Query.from_json({"column": "y", "op": "<=", "value": 9}, DATA.schema)


def policy(**changes) -> BoundedRewrite:
    """c = 4, rows as bytes; blocks of at least 200 rows; any unit up to the whole table."""
    settings = dict(block_rows=200, budget_bytes=800, bytes_per_row=1, write_multiplier=4, cost_model=RowsRead())
    return BoundedRewrite(**{**settings, **changes})


def by_blocks(candidates) -> dict[tuple[int, int], float]:
    return {(c.unit.first, c.unit.end): c.regret for c in candidates}


# What the re-layouts save ON_X (it reads 800 rows today):
# - the whole tree, re-cut at x <= 1 (200 rows) and the rest at y's median: ON_X reads 200, saves 600
# - one block, re-cut at x's median (x <= 1 would leave 100 rows, under a block): reads 200 of 400, saves 200


def test_regret_sums_what_each_query_since_the_phase_began_would_have_saved():
    assert by_blocks(policy().candidates(TWO_BLOCKS, [ON_X] * 3, DATA)) == {(0, 2): 1800.0, (0, 1): 600.0, (1, 2): 600.0}


def test_a_unit_costs_c_times_the_rows_it_rewrites():
    costs = {(c.unit.first, c.unit.end): c.write_cost for c in policy().candidates(TWO_BLOCKS, [ON_X], DATA)}
    assert costs == {(0, 2): 4 * 800.0, (0, 1): 4 * 400.0, (1, 2): 4 * 400.0}


def test_the_trigger_waits_until_the_regret_reaches_the_cost():
    p = policy()
    assert [p.propose(TWO_BLOCKS, [ON_X] * k, DATA) for k in range(1, 6)] == [None] * 5  # 5 x 600 < 3200
    change = p.propose(TWO_BLOCKS, [ON_X] * 6, DATA)  # 6 x 600 >= 3200
    assert (change.rewritten_blocks, change.regret, change.benefit, change.cost) == ((0, 1), 3600.0, 3600.0, 3200.0)


def test_the_trigger_fires_when_the_regret_equals_the_cost_with_the_job():
    p = policy(cost_model=RowsRead(job_cost=100.0))  # cost 4 x (800 + 100) = 3600 = 6 x 600
    assert p.propose(TWO_BLOCKS, [ON_X] * 5, DATA) is None
    change = p.propose(TWO_BLOCKS, [ON_X] * 6, DATA)
    assert change.regret == change.cost == 3600.0


def test_the_change_reports_break_even_horizon_and_predicted_benefit():
    change = policy().propose(TWO_BLOCKS, [ON_X] * 6, DATA)
    assert change.break_even_queries == pytest.approx(3200 / 600)
    assert (change.horizon_queries, change.predicted_benefit) == (6.0, 600.0 * 6)  # one run of 6 queries
    assert (change.budget_bytes, change.rewritten_bytes) == (800, 800.0)
    assert set(change.history_fields()) == {"unit", "budget_bytes", "rewritten_bytes", "regret",
                                            "break_even_queries", "horizon_queries", "predicted_benefit"}
    assert "root (2 blocks, cut for x)" in change.description and "break-even after 5.3 queries" in change.description


def test_queries_of_an_earlier_phase_do_not_count_toward_the_regret():
    # 50 queries on y come first; under the re-layout for x each would read 100 rows more, so
    # counted from the start of the log they would delay the rewrite by 9 queries
    earlier = [ON_Y] * 50
    p = policy(window=5)
    assert p.propose(TWO_BLOCKS, earlier + [ON_X] * 5, DATA) is None
    assert p.propose(TWO_BLOCKS, earlier + [ON_X] * 6, DATA).regret == 3600.0


def test_queries_before_a_block_was_written_do_not_count_toward_its_regret():
    # both blocks were written after the third query: rent restarts when one buys
    p = policy().with_block_births({0: 3, 1: 3})
    assert p.propose(TWO_BLOCKS, [ON_X] * 8, DATA) is None  # 5 x 600 < 3200
    assert p.propose(TWO_BLOCKS, [ON_X] * 9, DATA).regret == 3600.0


def test_the_budget_bounds_a_step_and_the_next_step_takes_the_rest():
    p = policy(budget_bytes=400)  # one block per step: the whole tree no longer fits
    assert p.propose(TWO_BLOCKS, [ON_X] * 7, DATA) is None  # 7 x 200 < 1600
    first = p.propose(TWO_BLOCKS, [ON_X] * 8, DATA)
    assert (first.rewritten_blocks, first.rewritten_bytes, first.regret, first.cost) == ((0,), 400.0, 1600.0, 1600.0)
    second = p.propose(first.tree.with_counts(DATA), [ON_X] * 8, DATA)
    assert second.rewritten_blocks == (1,) and second.rewritten_bytes <= 400


def test_a_unit_is_rewritten_only_once_its_own_regret_pays_for_it():
    # block 0 has paid (14 x 200 >= 1600), block 1 has not (4 x 200 < 1600): together they
    # would (3600 >= 3200), but block 1's share would be paid by block 0's queries
    low = Query.from_ranges(DATA.schema, {"x": (0, 1), "y": (0, 49)})
    high = Query.from_ranges(DATA.schema, {"x": (0, 1), "y": (50, 99)})
    change = policy().propose(TWO_BLOCKS, [low] * 14 + [high] * 4, DATA)
    assert (change.rewritten_blocks, change.regret, change.cost) == ((0,), 2800.0, 1600.0)


def test_sealed_blocks_are_never_rewritten():
    # block 0 (x <= 3, y <= 49) is exactly what `whole` asks for: its hot readers find mostly
    # matching rows there; blocks 2 and 3 (y > 49) no hot query reads
    four = PartitionTree(DATA.schema, Split(Y, 49.0, Split(X, 3.0, Leaf(0, 200.0), Leaf(1, 200.0)),
                                            Split(X, 3.0, Leaf(2, 200.0), Leaf(3, 200.0))))
    whole = Query.from_json({"and": [{"column": "x", "op": "<=", "value": 3},
                                     {"column": "y", "op": "<=", "value": 49}]}, DATA.schema)
    p = policy(block_rows=100)
    changes = [p.propose(four, [whole, ON_Y] * k, DATA) for k in range(1, 12)]
    assert all(c is None or set(c.rewritten_blocks) == {1} for c in changes)
    assert changes[7] is not None  # block 1, re-cut at y's median, saves ON_Y 100 rows: 8 x 100 = 4 x 200


def test_no_hot_template_no_change():
    columns = {f"c{i}": np.arange(800.0) % (i + 7) for i in range(12)}
    data = LayoutData.from_columns(columns)
    tree = build_kd_tree(data, block_rows=100)
    # each column once: no template makes up 10 % of the window
    scattered = [Query.from_ranges(data.schema, {name: (0, 1)}) for name in columns] * 3
    assert policy(hot_share=0.1, window=12).candidates(tree, scattered, data) == []


def test_a_policy_is_a_value():
    p = policy()
    assert p == policy() and hash(p) == hash(policy())
    a, b = (p.propose(TWO_BLOCKS, [ON_X] * 6, DATA) for _ in range(2))
    assert a.rewritten_blocks == b.rewritten_blocks and a.description == b.description
    assert np.array_equal(a.tree.route(DATA), b.tree.route(DATA))


def test_a_table_gives_its_block_size_and_row_width_unless_the_policy_has_its_own():
    table = BoundedRewrite().for_table(5_000).with_bytes_per_row(35)
    assert (table.block_rows, table.bytes_per_row, table.cost_model.bytes_per_row) == (5_000, 35, 35)
    own = BoundedRewrite(block_rows=100, bytes_per_row=8).for_table(5_000).with_bytes_per_row(35)
    assert (own.block_rows, own.bytes_per_row) == (100, 8)


def test_bytes_per_row_must_be_known():
    with pytest.raises(ValueError, match="bytes_per_row"):
        BoundedRewrite(cost_model=SparkCost(), block_rows=200).propose(TWO_BLOCKS, [ON_X] * 6, DATA)


def test_a_curve_layout_is_refused_by_name():
    curve = build_curve_layout(DATA, "zorder", block_rows=200)
    with pytest.raises(ValueError, match="PawRebuild"):
        policy().propose(curve, [ON_X] * 6, DATA)


def test_a_change_without_the_new_fields_is_built_as_before():
    change = LayoutChange(TWO_BLOCKS, (0,), 1.0, 0.5, "why")
    assert (change.description, change.unit, change.regret, change.history_fields()) == ("why", "", None, {})


def test_no_re_layout_saves_a_query_more_than_it_pays_on_the_unit_today(changed):
    # the bound that lets propose skip re-cutting units that cannot be paid yet
    data, tree, _ = changed
    workload = _hot_workload(data, 4)
    p = policy(block_rows=100, budget_bytes=3000, write_multiplier=1)
    today = CurrentReads.of(tree, AccountedQueries.of(workload, 0), p.cost_model).paid
    candidates = p.candidates(tree, workload, data)
    assert candidates
    for c in candidates:
        assert (c.savings <= today[:, c.unit.first:c.unit.end].sum(axis=1) + 1e-9).all()


def test_skipping_units_that_cannot_be_paid_changes_no_decision():
    # candidates() re-cuts every unit, propose only those whose queries paid their write cost today
    data = _random_table(7)
    tree = _trees(data)["kd"]
    p = policy(block_rows=100, budget_bytes=3000, write_multiplier=8)
    workload = _hot_workload(data, 8)
    decisions = []
    for k in range(2, 40, 4):
        chosen = p._within_budget([c for c in p.candidates(tree, workload[:k], data) if c.paid])
        paid = chosen and sum(c.regret for c in chosen) >= sum(c.write_cost for c in chosen)  # RowsRead: no job
        expected = sorted(int(tree.block_ids[b]) for c in chosen for b in c.unit.blocks) if paid else None
        change = p.propose(tree, workload[:k], data)
        decisions.append(None if change is None else list(change.rewritten_blocks))
        assert decisions[-1] == expected
    assert None in decisions and any(decisions)  # both kinds of decision were compared


# --- routing stays exact -------------------------------------------------------------------

def _random_table(seed: int) -> LayoutData:
    rng = np.random.default_rng(seed)
    return LayoutData.from_columns({"a": rng.random(6000), "b": rng.random(6000), "c": rng.integers(0, 40, 6000),
                                    "d": rng.choice(["x", "y", "z"], 6000)})


def _hot_workload(data: LayoutData, seed: int, n: int = 80) -> list[Query]:
    rng = np.random.default_rng(seed)
    low = rng.normal(0.3, 0.02, (n, 2))
    return [Query.from_ranges(data.schema, {"a": (lo[0], lo[0] + 0.1), "b": (lo[1], lo[1] + 0.1)}) for lo in low]


def _trees(data: LayoutData):
    """Trees that cut on c and d, not on the hot queries' a and b: a k-d tree and PAW's (with
    group splits)."""
    sample = data.sample(3000, 1)
    history = [Query.from_ranges(data.schema, {"c": (lo, lo + 5)}) for lo in range(0, 35, 7)]
    return {"kd": build_kd_tree(sample, 100, data.rows, columns=["c", "d"]).with_counts(data),
            "paw": build_paw_tree(sample, history, 100, 0.02, data.rows).with_counts(data)}


@pytest.fixture(scope="module", params=["kd", "paw"])
def changed(request):
    data = _random_table(3)
    tree = _trees(data)[request.param]
    change = policy(block_rows=100, budget_bytes=3000, write_multiplier=1).propose(tree, _hot_workload(data, 4), data)
    assert change is not None
    return data, tree, change


def test_rows_of_unchanged_blocks_stay_and_rows_of_rewritten_blocks_go_to_new_blocks(changed):
    data, tree, change = changed
    before = tree.block_ids[tree.route(data)]
    after = change.tree.block_ids[change.tree.route(data)]
    moved = np.isin(before, change.rewritten_blocks)
    assert moved.any() and not moved.all()
    assert np.array_equal(after[~moved], before[~moved])
    assert not np.isin(after[moved], tree.block_ids).any()
    # what the table checks: the new tree drops exactly the listed blocks
    assert set(tree.block_ids.tolist()) - set(change.tree.block_ids.tolist()) == set(change.rewritten_blocks)


@pytest.fixture(scope="module")
def random_queries() -> list[Query]:
    """Ranges, equalities, IN lists, OR and NOT over every column (the tree's and the re-cut's)."""
    schema, rng = _random_table(3).schema, np.random.default_rng(5)
    out = []
    for _ in range(60):
        a, c = np.sort(rng.random(2)), int(rng.integers(0, 40))
        out.append(Query.from_json({"or": [{"and": [{"column": "a", "op": ">", "value": float(a[0])},
                                                    {"column": "a", "op": "<=", "value": float(a[1])}]},
                                           {"and": [{"column": "c", "op": "=", "value": c},
                                                    {"column": "d", "op": "IN", "value": ["x", "z"]}]},
                                           {"not": {"column": "b", "op": "BETWEEN", "value": [0.05, 0.97]}}]}, schema))
    return out


def test_every_row_a_query_matches_lies_in_a_block_it_reads(changed, random_queries):
    data, _, change = changed
    tree = change.tree.with_counts(data)
    positions = tree.route(data)
    for q in random_queries + _hot_workload(data, 6, n=20):
        needed = np.unique(positions[q.matches(data)])
        assert tree.touched(q)[needed].all()


def test_held_out_counts_leave_out_the_fitted_positions_and_scale_to_every_query():
    # positions 0..5: a, b, a, c, b, a; the subtree was cut for positions 0 and 4 (a and b)
    a, b, c = (Query.from_json({"column": "x", "op": "<=", "value": v}, DATA.schema) for v in (1, 2, 3))
    log = AccountedQueries.of([a, b, a, c, b, a], first=0)
    assert log.counts_since(0).tolist() == [3.0, 2.0, 1.0]
    assert log.counts_since(0, frozenset({0, 4})).tolist() == [2.0, 1.0, 1.0]
    # 4 held-out queries stand for all 6: each counts 6/4
    assert log.held_out_counts(0, frozenset({0, 4})).tolist() == [3.0, 1.5, 1.5]
    # from position 3 on (c, b, a), position 4 fitted: 2 held out stand for 3
    assert log.held_out_counts(3, frozenset({0, 4})).tolist() == [1.5, 0.0, 1.5]
    assert log.held_out_counts(0, frozenset()).tolist() == log.counts_since(0).tolist()


def test_units_are_cut_for_half_of_many_distinct_queries_and_for_all_of_a_few_repeated():
    from skipstone.layout.bounded.policy import MIN_DISTINCT_TO_HOLD_OUT, _fitted_positions

    distinct = [Query.from_json({"column": "x", "op": "<=", "value": v / 10}, DATA.schema) for v in range(40)]
    fitted, held_out = _fitted_positions(distinct, list(range(40)))
    assert 0 < len(fitted) < 40 and held_out == frozenset(fitted)
    assert _fitted_positions(distinct, list(range(40))) == (fitted, held_out)  # the same split every time
    few = [distinct[i % (MIN_DISTINCT_TO_HOLD_OUT - 1)] for i in range(40)]
    assert _fitted_positions(few, list(range(40))) == (list(range(40)), frozenset())
