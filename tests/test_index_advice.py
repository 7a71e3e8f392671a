"""Index advice (``skipstone.indexes.advice``): which index to build for the filters the logged
queries use that no index answers."""
from __future__ import annotations

import doctest

import skipstone.indexes.advice
from skipstone.indexes.advice import advise, column_uses

RANGE = {"column": "ts", "op": ">=", "value": 10}
EQUALS = {"column": "user", "op": "=", "value": "u1"}


def advice_for(logged, indexes=(), distinct=None):
    return {a.column: a for a in advise(column_uses(logged), list(indexes), distinct or {})}


def test_a_range_no_index_answers_suggests_minmax():
    a = advice_for([(RANGE, 1.0)] * 3)["ts"]
    assert (a.queries, a.range_queries, a.suggestion) == (3, 3, "MinMax(ts)") and "by a range" in a.reason


def test_equality_on_few_values_suggests_a_value_list_and_on_many_a_bloom_filter():
    assert advice_for([(EQUALS, 1.0)], distinct={"user": 40})["user"].suggestion == "ValueList(user)"
    assert advice_for([(EQUALS, 1.0)], distinct={"user": 40_000})["user"].suggestion == "BloomFilter(user)"


def test_equality_minmax_cannot_skip_on_an_unclustered_column_suggests_a_value_index():
    minmax = [("MinMax(user)", "minmax", ("user",))]
    unclustered = advice_for([(EQUALS, 0.9)], minmax, {"user": 40_000})["user"]
    assert unclustered.suggestion == "BloomFilter(user)" and "not clustered" in unclustered.reason
    assert advice_for([(EQUALS, 0.1)], minmax)["user"].suggestion is None  # clustered: MinMax skips


def test_a_column_an_index_answers_gets_no_suggestion():
    a = advice_for([(RANGE, 0.2)], [("MinMax(ts)", "minmax", ("ts",))])["ts"]
    assert (a.indexes, a.suggestion, a.reason) == (("MinMax(ts)",), None, "answered by MinMax(ts)")


def test_uses_are_counted_through_and_or_not_and_in():
    logged = [({"or": [{"not": RANGE}, {"column": "user", "op": "IN", "value": ["a", "b"]}]}, 0.5),
              ({"and": [RANGE, {"column": "ts", "op": "=", "value": 3}]}, 1.0)]
    ts, user = advice_for(logged)["ts"], advice_for(logged)["user"]
    assert (ts.queries, ts.range_queries, ts.equality_queries, ts.files_read_share) == (2, 2, 1, 0.75)
    assert (user.queries, user.equality_queries) == (1, 1)


def test_the_modules_examples_run():
    assert doctest.testmod(skipstone.indexes.advice).failed == 0
