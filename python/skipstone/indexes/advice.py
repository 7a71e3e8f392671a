"""Skipping-index advice: which columns the logged queries filter on that no index answers.

From each logged query's predicate (the workload log's JSON, ``skipstone.layout.predicates``)
and the share of files it read, per column: how many queries bound it, by a range (``<``,
``<=``, ``>``, ``>=``, ``BETWEEN``) or by equality (``=``, ``IN``), the mean share of files
those queries read, the indexes that cover it, and a suggestion with its reason:

- a range no index answers: ``MinMax`` (it answers ranges and equality);
- equality no index answers: ``ValueList`` when the column has at most ``VALUE_LIST_MAX``
  distinct values (each file's values are stored, exactly), else ``BloomFilter``;
- equality only ``MinMax`` answers, while the queries still read at least ``UNCLUSTERED_SHARE``
  of the files: the column is not clustered, so min/max rule out little; the same choice.

>>> logged = [({"column": "day", "op": ">=", "value": 3}, 0.2),
...           ({"and": [{"column": "user", "op": "=", "value": "u7"}, {"column": "day", "op": "<", "value": 9}]}, 0.9)]
>>> indexes = [("MinMax(day)", "minmax", ("day",))]
>>> for a in advise(column_uses(logged), indexes, distinct={"user": 50_000}):
...     print(a.column, a.queries, a.indexes, a.suggestion, "-", a.reason)
day 2 ('MinMax(day)',) None - answered by MinMax(day)
user 1 () BloomFilter(user) - 1 query filters it by equality and no index answers it; 50000 distinct values: too many for ValueList
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from skipstone.layout.predicates import And, Between, Comparison, In, Not, Or, parse_predicate

VALUE_LIST_MAX = 1000  # ValueList's default max_size: above it a file stores no list
UNCLUSTERED_SHARE = 0.5  # MinMax answering equality while queries read this share of files: not clustered

# Which filters each built-in index kind answers (docs/index-types.md).
ANSWERS_RANGES = frozenset({"minmax", "valuelist", "gaplist"})
ANSWERS_EQUALITY = frozenset({"minmax", "valuelist", "bloomfilter", "hybrid", "prefix", "suffix", "gaplist"})


@dataclass(frozen=True)
class ColumnUse:
    """How the logged queries filter on one column."""

    column: str
    queries: int
    range_queries: int
    equality_queries: int
    files_read_share: float  # mean over the queries that filter on it


@dataclass(frozen=True)
class Advice:
    """One column the queries filter on: its use, the indexes covering it, what to build and why."""

    column: str
    queries: int
    range_queries: int
    equality_queries: int
    files_read_share: float
    indexes: tuple[str, ...]
    suggestion: str | None
    reason: str


def column_uses(logged: Sequence[tuple[Mapping[str, Any], float]]) -> list[ColumnUse]:
    """Per column (by name), from (predicate JSON, share of files read) pairs; most queries first.

    >>> [(u.column, u.range_queries, u.equality_queries) for u in column_uses(
    ...     [({"column": "a", "op": "IN", "value": [1, 2]}, 1.0), ({"column": "a", "op": "<", "value": 5}, 0.5)])]
    [('a', 1, 1)]
    """
    counts: dict[str, list[float]] = {}  # column -> [queries, ranges, equalities, sum of shares]
    for predicate, share in logged:
        kinds = parse_predicate(predicate).accept(_Uses())
        for column, used in kinds.items():
            c = counts.setdefault(column, [0, 0, 0, 0.0])
            c[0] += 1
            c[1] += "range" in used
            c[2] += "equality" in used
            c[3] += share
    uses = [ColumnUse(name, int(c[0]), int(c[1]), int(c[2]), c[3] / c[0]) for name, c in counts.items()]
    return sorted(uses, key=lambda u: (-u.queries, u.column))


def advise(uses: Sequence[ColumnUse], indexes: Sequence[tuple[str, str, Sequence[str]]],
           distinct: Mapping[str, int]) -> list[Advice]:
    """The advice for each column use, given the indexes (description, kind, columns) and the
    distinct counts of the columns (those missing are taken as many)."""
    out = []
    for use in uses:
        covering = [(name, kind) for name, kind, columns in indexes if list(columns) == [use.column]]
        suggestion, reason = _suggest(use, covering, distinct.get(use.column))
        out.append(Advice(use.column, use.queries, use.range_queries, use.equality_queries, use.files_read_share,
                          tuple(name for name, _ in covering), suggestion, reason))
    return out


def needs_distinct_count(use: ColumnUse, indexes: Sequence[tuple[str, str, Sequence[str]]]) -> bool:
    """Whether ``advise`` would choose between ValueList and BloomFilter for this column."""
    kinds = {kind for _, kind, columns in indexes if list(columns) == [use.column]}
    return use.equality_queries > 0 and not (kinds & (ANSWERS_EQUALITY - {"minmax"}))


def _suggest(use: ColumnUse, covering: Sequence[tuple[str, str]], distinct: int | None) -> tuple[str | None, str]:
    kinds = {kind for _, kind in covering}
    if use.range_queries and not kinds & ANSWERS_RANGES:
        return f"MinMax({use.column})", f"{_filter(use.range_queries)} it by a range and no index answers it"
    if use.equality_queries and not kinds & ANSWERS_EQUALITY:
        return _equality_index(use.column, distinct, f"{_filter(use.equality_queries)} it by equality and no index answers it")
    if use.equality_queries and kinds <= {"minmax"} and use.files_read_share >= UNCLUSTERED_SHARE:
        why = (f"MinMax answers its equalities, but the queries read {use.files_read_share:.0%} of the files: "
               "the column is not clustered")
        return _equality_index(use.column, distinct, why)
    return None, "answered by " + ", ".join(name for name, _ in covering) if covering else "no filter an index answers"


def _filter(queries: int) -> str:
    return "1 query filters" if queries == 1 else f"{queries} queries filter"


def _equality_index(column: str, distinct: int | None, why: str) -> tuple[str, str]:
    if distinct is not None and distinct <= VALUE_LIST_MAX:
        return f"ValueList({column})", f"{why}; {distinct} distinct values: few enough to list per file"
    shown = f"{distinct} distinct values" if distinct is not None else "many distinct values"
    return f"BloomFilter({column})", f"{why}; {shown}: too many for ValueList"


class _Uses:
    """Per column, how a predicate filters it: 'range' and/or 'equality' (NOT keeps the kind)."""

    def comparison(self, p: Comparison) -> dict[str, set[str]]:
        return {p.column: {"equality" if p.op == "=" else "range"}}

    def in_list(self, p: In) -> dict[str, set[str]]:
        return {p.column: {"equality"}}

    def between(self, p: Between) -> dict[str, set[str]]:
        return {p.column: {"range"}}

    def conjunction(self, p: And) -> dict[str, set[str]]:
        return self._merge(p.children)

    def disjunction(self, p: Or) -> dict[str, set[str]]:
        return self._merge(p.children)

    def negation(self, p: Not) -> dict[str, set[str]]:
        return p.child.accept(self)

    def _merge(self, children: Sequence[Any]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for child in children:
            for column, kinds in child.accept(self).items():
                out.setdefault(column, set()).update(kinds)
        return out
