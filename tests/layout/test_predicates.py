"""Predicate trees become disjoint boxes over encoded columns."""

from __future__ import annotations

import math

import numpy as np
import pytest

from skipstone.layout import Column, ColumnKind, LayoutData, Query, Schema, parse_predicate

INT_AB = Schema((Column("a", ColumnKind.INTEGER), Column("b", ColumnKind.INTEGER)))


def boxes_of(tree: dict, schema: Schema = INT_AB) -> list[tuple[list[float], list[float]]]:
    q = Query.from_json(tree, schema)
    return sorted(zip(q.boxes.low.tolist(), q.boxes.high.tolist()))


def test_strict_less_than_on_integers_becomes_at_most_the_previous_integer():
    assert boxes_of({"column": "a", "op": "<", "value": 5}) == [([-math.inf, -math.inf], [4.0, math.inf])]


def test_greater_or_equal_on_integers_starts_after_the_previous_integer():
    assert boxes_of({"column": "a", "op": ">=", "value": 5}) == [([4.0, -math.inf], [math.inf, math.inf])]


def test_and_intersects_ranges_on_different_columns():
    tree = {"and": [{"column": "a", "op": ">", "value": 1}, {"column": "b", "op": "<=", "value": 9}]}
    assert boxes_of(tree) == [([1.0, -math.inf], [math.inf, 9.0])]


def test_or_is_decomposed_into_disjoint_boxes_as_in_paw():
    # A >= 10 OR B <= 50  ->  [10, inf) x R  and  (-inf, 10) x (-inf, 50]
    tree = {"or": [{"column": "a", "op": ">=", "value": 10}, {"column": "b", "op": "<=", "value": 50}]}
    assert boxes_of(tree) == [
        ([-math.inf, -math.inf], [9.0, 50.0]),
        ([9.0, -math.inf], [math.inf, math.inf]),
    ]


def test_in_list_gives_one_box_per_value_and_merges_neighbours():
    tree = {"column": "a", "op": "IN", "value": [7, 3, 4]}
    assert boxes_of(tree) == [([2.0, -math.inf], [4.0, math.inf]), ([6.0, -math.inf], [7.0, math.inf])]


def test_between_includes_both_ends():
    tree = {"column": "a", "op": "BETWEEN", "value": [3, 6]}
    assert boxes_of(tree) == [([2.0, -math.inf], [6.0, math.inf])]


def test_not_equal_is_everything_but_the_value():
    tree = {"not": {"column": "a", "op": "=", "value": 5}}
    assert boxes_of(tree) == [([-math.inf, -math.inf], [4.0, math.inf]), ([5.0, -math.inf], [math.inf, math.inf])]


def test_not_of_and_follows_de_morgan():
    tree = {"not": {"and": [{"column": "a", "op": "<=", "value": 1}, {"column": "b", "op": "<=", "value": 1}]}}
    data = LayoutData(INT_AB, np.array([[a, b] for a in range(4) for b in range(4)], dtype=float))
    expected = ~((data.values[:, 0] <= 1) & (data.values[:, 1] <= 1))
    assert Query.from_json(tree, INT_AB).matches(data).tolist() == expected.tolist()


def test_predicate_on_a_column_outside_the_layout_constrains_nothing_even_under_not():
    tree = {"not": {"and": [{"column": "zzz", "op": "=", "value": 1}, {"column": "a", "op": "<=", "value": 1}]}}
    # NOT (zzz = 1 AND a <= 1) may be TRUE for any row: zzz = 1 can be false anywhere.
    assert boxes_of(tree) == [([-math.inf, -math.inf], [math.inf, math.inf])]


def test_strict_mode_names_the_unknown_column():
    with pytest.raises(KeyError, match="zzz"):
        Query.from_json({"column": "zzz", "op": "=", "value": 1}, INT_AB, strict=True)


def test_categorical_equality_uses_the_order_preserving_code():
    data = LayoutData.from_columns({"mode": np.array(["SHIP", "AIR", "MAIL", "AIR"])})
    q = Query.from_json({"column": "mode", "op": "=", "value": "AIR"}, data.schema)
    assert q.matches(data).tolist() == [False, True, False, True]


def test_categorical_range_with_a_value_missing_from_the_dictionary_keeps_order():
    data = LayoutData.from_columns({"mode": np.array(["AIR", "MAIL", "SHIP"])})
    q = Query.from_json({"column": "mode", "op": "<", "value": "BOAT"}, data.schema)
    assert q.matches(data).tolist() == [True, False, False]


def test_equality_with_an_unknown_category_matches_nothing():
    data = LayoutData.from_columns({"mode": np.array(["AIR", "MAIL"])})
    assert Query.from_json({"column": "mode", "op": "=", "value": "BOAT"}, data.schema).boxes.is_empty


def test_dates_compare_as_days_and_accept_iso_strings():
    data = LayoutData.from_columns({"d": np.array(["1994-01-01", "1994-06-30", "1995-01-01"], dtype="datetime64[D]")})
    q = Query.from_json({"column": "d", "op": "<", "value": "1995-01-01"}, data.schema)
    assert q.matches(data).tolist() == [True, True, False]


def test_strict_less_than_on_floats_excludes_the_value_itself():
    data = LayoutData.from_columns({"x": np.array([0.5, 0.49999999, 0.6])})
    q = Query.from_json({"column": "x", "op": "<", "value": 0.5}, data.schema)
    assert q.matches(data).tolist() == [False, True, False]


def test_nulls_satisfy_no_comparison_and_no_negated_comparison():
    data = LayoutData.from_columns({"x": np.array([1.0, None, 3.0], dtype=object)}, kinds={"x": "numeric"})
    for tree in ({"column": "x", "op": "<", "value": 2}, {"not": {"column": "x", "op": "<", "value": 2}}):
        assert Query.from_json(tree, data.schema).matches(data)[1] == False  # noqa: E712


def test_json_round_trip_keeps_the_predicate():
    tree = {"or": [{"and": [{"column": "a", "op": "IN", "value": [1, 2]}, {"not": {"column": "b", "op": "BETWEEN", "value": [1, 2]}}]},
                   {"column": "a", "op": ">", "value": 3}]}
    p = parse_predicate(tree)
    assert parse_predicate(p.to_json()) == p
    assert p.columns() == {"a", "b"}


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"column": "a", "op": "LIKE", "value": 1}, "LIKE"),
        ({"column": "a", "op": "IN", "value": 1}, "IN needs a list"),
        ({"column": "a", "op": "BETWEEN", "value": [1]}, "BETWEEN needs"),
        ({"column": "a", "op": "<"}, "lacks"),
        ({"and": []}, "non-empty"),
    ],
)
def test_malformed_predicates_are_rejected_with_the_reason(bad, message):
    with pytest.raises(ValueError, match=message):
        parse_predicate(bad)


def test_non_numeric_literal_on_a_numeric_column_names_the_column():
    with pytest.raises(ValueError, match="'a'"):
        Query.from_json({"column": "a", "op": "<", "value": "x"}, INT_AB)
