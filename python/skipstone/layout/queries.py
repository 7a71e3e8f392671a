"""A query, as the layout sees it: a set of disjoint boxes over the layout's columns.

>>> from skipstone.layout.schema import Column, ColumnKind, Schema
>>> schema = Schema((Column("a", ColumnKind.INTEGER), Column("b", ColumnKind.INTEGER)))
>>> q = Query.from_json({"or": [{"column": "a", "op": ">=", "value": 10},
...                             {"column": "b", "op": "<=", "value": 50}]}, schema)
>>> q.boxes.low.tolist(), q.boxes.high.tolist()   # [10, inf) x R and (-inf, 10) x (-inf, 50]
([[9.0, -inf], [-inf, -inf]], [[inf, inf], [9.0, 50.0]])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from skipstone.layout.boxes import BoxSet
from skipstone.layout.predicates import And, Between, Comparison, In, Not, Or, Predicate, parse_predicate
from skipstone.layout.schema import LayoutData, Schema


@dataclass(frozen=True, eq=False)
class Query:
    """Disjoint boxes (a ``BoxSet``), plus the predicate they came from.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import Query
    >>> a_and_b = {"and": [{"column": "a", "op": ">=", "value": 10}, {"column": "b", "op": "IN", "value": [1, 5]}]}
    >>> query = Query.from_json(a_and_b, data.schema)
    >>> query.boxes.count, int(query.matches(data).sum())
    (2, 158)
    """

    boxes: BoxSet
    predicate: Predicate | None = None

    @staticmethod
    def from_predicate(predicate: Predicate, schema: Schema, strict: bool = False) -> Query:
        """Boxes for a predicate. Leaves on columns outside the layout constrain nothing
        (they could be TRUE for any row) unless `strict`, which raises naming the column."""
        boxes = predicate.accept(_Boxes(schema, negated=False, strict=strict))
        return Query(boxes, predicate)

    @staticmethod
    def from_json(tree: Mapping[str, Any], schema: Schema, strict: bool = False) -> Query:
        """The query of a predicate's JSON form (``parse_predicate``), as boxes over ``schema``."""
        return Query.from_predicate(parse_predicate(tree), schema, strict)

    @staticmethod
    def from_ranges(schema: Schema, ranges: Mapping[str, tuple[float, float]]) -> Query:
        """One box from closed encoded ranges, `{"a": (low, high)}` meaning low <= a <= high."""
        low = np.full(schema.width, -math.inf)
        high = np.full(schema.width, math.inf)
        for name, (lo, hi) in ranges.items():
            column = schema.column(name)
            low[schema.index(name)] = column.previous(float(lo))
            high[schema.index(name)] = float(hi)
        return Query(BoxSet.single(low, high))

    def matches(self, data: LayoutData) -> np.ndarray:
        """Which rows satisfy the query (exactly, for predicates on layout columns)."""
        return self.boxes.contains_points(data.values)

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        """(low, high): the one box around the query's boxes; zeros when it matches nothing."""
        box = self.boxes.bounding_box()
        width = self.boxes.width
        if box.is_empty:
            return np.zeros(width), np.zeros(width)
        return box.low[0], box.high[0]


class _Boxes:
    """Negation normal form on the fly: NOT flips `negated` and De Morgan swaps AND/OR, so a
    leaf we cannot judge (unknown column) can safely be "any row" in every position."""

    def __init__(self, schema: Schema, negated: bool, strict: bool) -> None:
        self.schema, self.negated, self.strict = schema, negated, strict

    def comparison(self, p: Comparison) -> BoxSet:
        return self._leaf(p.column, lambda c: [c.interval(p.op, p.value)])

    def in_list(self, p: In) -> BoxSet:
        return self._leaf(p.column, lambda c: [c.interval("=", v) for v in p.values])

    def between(self, p: Between) -> BoxSet:
        def interval(c: Any) -> list[tuple[float, float]]:
            low, high = c.interval(">=", p.low)[0], c.interval("<=", p.high)[1]
            return [(low, high)]

        return self._leaf(p.column, interval)

    def conjunction(self, p: And) -> BoxSet:
        return self._combine(p.children, intersect=not self.negated)

    def disjunction(self, p: Or) -> BoxSet:
        return self._combine(p.children, intersect=self.negated)

    def negation(self, p: Not) -> BoxSet:
        return p.child.accept(_Boxes(self.schema, not self.negated, self.strict))

    def _combine(self, children: tuple[Predicate, ...], intersect: bool) -> BoxSet:
        result = children[0].accept(self)
        for child in children[1:]:
            boxes = child.accept(self)
            result = result.intersect(boxes) if intersect else result.union(boxes)
        return result

    def _leaf(self, name: str, intervals_of: Any) -> BoxSet:
        width = self.schema.width
        if name not in self.schema.names:
            if self.strict:
                raise KeyError(f"predicate column {name!r} is not a layout column ({', '.join(self.schema.names)})")
            return BoxSet.universe(width)
        dim = self.schema.index(name)
        intervals = _merge([iv for iv in intervals_of(self.schema.column(name)) if iv[0] < iv[1]])
        if self.negated:
            intervals = _complement(intervals)
        low = np.full((len(intervals), width), -math.inf)
        high = np.full((len(intervals), width), math.inf)
        for k, (lo, hi) in enumerate(intervals):
            low[k, dim], high[k, dim] = lo, hi
        return BoxSet(low, high)


def _merge(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    merged: list[tuple[float, float]] = []
    for lo, hi in sorted(intervals):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def _complement(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out, start = [], -math.inf
    for lo, hi in intervals:
        if lo > start:
            out.append((start, lo))
        start = hi
    if start < math.inf:
        out.append((start, math.inf))
    return out
