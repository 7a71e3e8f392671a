"""How BoundedRewrite reads the log: templates, runs, the hot queries and where regret counts from."""
from __future__ import annotations

from skipstone.layout import Column, ColumnKind, Query, Schema
from skipstone.layout.bounded.patterns import template_of, workload_patterns

SCHEMA = Schema(tuple(Column(name, ColumnKind.INTEGER) for name in "abc"))
A = Query.from_ranges(SCHEMA, {"a": (0, 5)})
A_WIDER = Query.from_ranges(SCHEMA, {"a": (0, 50)})
BC = Query.from_json({"or": [{"column": "b", "op": "<", "value": 3}, {"column": "c", "op": ">", "value": 7}]}, SCHEMA)


def test_a_template_is_the_set_of_columns_a_query_bounds():
    assert template_of(A) == template_of(A_WIDER) == frozenset({0})
    assert template_of(BC) == frozenset({1, 2})


def test_interleaved_templates_run_side_by_side():
    p = workload_patterns([A, BC] * 10, window=4, hot_share=0.25)
    assert p.horizon == 19.0  # a: positions 0..18, bc: 1..19
    assert (p.phase_start, [x.start for x in p.patterns]) == (0, [0, 1, 0])  # each alone, then both


def test_a_template_that_returns_after_a_quiet_window_starts_a_new_run():
    log = [A] * 10 + [BC] * 10 + [A] * 4
    p = workload_patterns(log, window=5, hot_share=0.5)
    assert [x.start for x in p.patterns] == [20]  # bc made up 1 of the last 5: not hot
    assert p.horizon == (10 + 10 + 4) / 3


def test_hot_queries_are_recent_and_frequent():
    log = [A] * 20 + [BC] * 9 + [A]
    p = workload_patterns(log, window=10, hot_share=0.2)
    assert p.hot == tuple(range(20, 29)) and p.window_start == 20  # the one recent a is 10 % of the window
