"""The predicate trees the layout algorithms learn from, and their JSON form.

The Spark side records each query's pushed-down filter as a tree of (column, op, value) leaves
joined by AND / OR / NOT, in the JSON shape below, and the layout turns it into disjoint boxes
(`skipstone.layout.queries.Query`).

    {"and": [{"column": "l_shipdate", "op": ">=", "value": "1994-01-01"},
             {"column": "l_quantity", "op": "<", "value": 24},
             {"column": "l_shipmode", "op": "IN", "value": ["AIR", "MAIL"]},
             {"not": {"column": "l_discount", "op": "BETWEEN", "value": [0.05, 0.07]}}]}

>>> p = parse_predicate({"or": [{"column": "a", "op": ">=", "value": 10}, {"column": "b", "op": "<=", "value": 50}]})
>>> p
Or(children=(Comparison(column='a', op='>=', value=10), Comparison(column='b', op='<=', value=50)))
>>> parse_predicate(p.to_json()) == p
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Mapping, Protocol, TypeVar

T = TypeVar("T", covariant=True)

COMPARISONS = ("=", "<", "<=", ">", ">=")


class PredicateVisitor(Protocol, Generic[T]):  # type: ignore[misc]
    """One method per predicate form; a concern (boxes, columns used, JSON) is one visitor."""

    def comparison(self, p: Comparison) -> T: ...
    def in_list(self, p: In) -> T: ...
    def between(self, p: Between) -> T: ...
    def conjunction(self, p: And) -> T: ...
    def disjunction(self, p: Or) -> T: ...
    def negation(self, p: Not) -> T: ...


class Predicate:
    """Base of the predicate forms; immutable values compared by content.

    >>> from skipstone.layout import And, Comparison, In, Predicate
    >>> p = And((Comparison("a", "<", 5), In("b", (1, 2))))
    >>> isinstance(p, Predicate), sorted(p.columns())
    (True, ['a', 'b'])
    """

    def accept(self, visitor: PredicateVisitor[T]) -> T:
        """Call the ``visitor`` method for this form (``comparison``, ``in_list``, ..., ``negation``)."""
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        """The predicate's JSON form, as the workload log stores it (``parse_predicate`` reads it back)."""
        return self.accept(_ToJson())

    def columns(self) -> frozenset[str]:
        """The names of the columns this predicate reads."""
        return self.accept(_Columns())


@dataclass(frozen=True)
class Comparison(Predicate):
    """`column op value` with op one of =, <, <=, >, >=.

    >>> from skipstone.layout import Comparison
    >>> Comparison("temp", ">", 35.5).to_json()
    {'column': 'temp', 'op': '>', 'value': 35.5}
    """

    column: str
    op: str
    value: Any

    def __post_init__(self) -> None:
        if self.op not in COMPARISONS:
            raise ValueError(f"column {self.column!r}: unknown comparison {self.op!r}; use one of {COMPARISONS}")

    def accept(self, visitor: PredicateVisitor[T]) -> T:
        """Call ``visitor.comparison``."""
        return visitor.comparison(self)


@dataclass(frozen=True)
class In(Predicate):
    """`column IN (values...)`.

    >>> from skipstone.layout import In
    >>> In("city", ("Oslo", "Rome")).columns()
    frozenset({'city'})
    """

    column: str
    values: tuple[Any, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.values, tuple):
            object.__setattr__(self, "values", tuple(self.values))

    def accept(self, visitor: PredicateVisitor[T]) -> T:
        """Call ``visitor.in_list``."""
        return visitor.in_list(self)


@dataclass(frozen=True)
class Between(Predicate):
    """`column BETWEEN low AND high` (both ends included, as in SQL).

    >>> from skipstone.layout import Between
    >>> Between("ts", 10, 20).to_json()
    {'column': 'ts', 'op': 'BETWEEN', 'value': [10, 20]}
    """

    column: str
    low: Any
    high: Any

    def accept(self, visitor: PredicateVisitor[T]) -> T:
        """Call ``visitor.between``."""
        return visitor.between(self)


@dataclass(frozen=True)
class And(Predicate):
    """Every child holds.

    >>> And((Comparison("a", ">", 1), In("b", (2, 3)))).to_json()
    {'and': [{'column': 'a', 'op': '>', 'value': 1}, {'column': 'b', 'op': 'IN', 'value': [2, 3]}]}
    """

    children: tuple[Predicate, ...]

    def __post_init__(self) -> None:
        _check_children("and", self.children)

    def accept(self, visitor: PredicateVisitor[T]) -> T:
        """Call ``visitor.conjunction``."""
        return visitor.conjunction(self)


@dataclass(frozen=True)
class Or(Predicate):
    """At least one child holds.

    >>> parse_predicate({"or": [{"column": "a", "op": "<", "value": 0}, {"column": "a", "op": ">", "value": 9}]})
    Or(children=(Comparison(column='a', op='<', value=0), Comparison(column='a', op='>', value=9)))
    """

    children: tuple[Predicate, ...]

    def __post_init__(self) -> None:
        _check_children("or", self.children)

    def accept(self, visitor: PredicateVisitor[T]) -> T:
        """Call ``visitor.disjunction``."""
        return visitor.disjunction(self)


@dataclass(frozen=True)
class Not(Predicate):
    """The child does not hold.

    >>> Not(Between("ts", 10, 20)).to_json()
    {'not': {'column': 'ts', 'op': 'BETWEEN', 'value': [10, 20]}}
    """

    child: Predicate

    def accept(self, visitor: PredicateVisitor[T]) -> T:
        """Call ``visitor.negation``."""
        return visitor.negation(self)


def parse_predicate(tree: Mapping[str, Any]) -> Predicate:
    """Build a predicate from its JSON form (the form of the workload log and ``Predicate.to_json``).

    >>> parse_predicate({"and": [{"column": "a", "op": "IN", "value": [1, 2]}, {"not": {"column": "b", "op": "=", "value": 0}}]})
    And(children=(In(column='a', values=(1, 2)), Not(child=Comparison(column='b', op='=', value=0))))
    """
    if not isinstance(tree, Mapping):
        raise ValueError(f"a predicate must be a JSON object, got {tree!r}")
    if "and" in tree:
        return And(tuple(parse_predicate(c) for c in tree["and"]))
    if "or" in tree:
        return Or(tuple(parse_predicate(c) for c in tree["or"]))
    if "not" in tree:
        return Not(parse_predicate(tree["not"]))
    missing = [k for k in ("column", "op", "value") if k not in tree]
    if missing:
        raise ValueError(f"predicate leaf {dict(tree)!r} lacks {missing}")
    column, op, value = tree["column"], str(tree["op"]).upper(), tree["value"]
    if op == "IN":
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"column {column!r}: IN needs a list of values, got {value!r}")
        return In(column, tuple(value))
    if op == "BETWEEN":
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise ValueError(f"column {column!r}: BETWEEN needs [low, high], got {value!r}")
        return Between(column, value[0], value[1])
    return Comparison(column, op, value)


def _check_children(kind: str, children: tuple[Predicate, ...]) -> None:
    if not isinstance(children, tuple) or not children:
        raise ValueError(f"{kind} needs a non-empty tuple of predicates, got {children!r}")


class _ToJson:
    def comparison(self, p: Comparison) -> dict[str, Any]:
        return {"column": p.column, "op": p.op, "value": p.value}

    def in_list(self, p: In) -> dict[str, Any]:
        return {"column": p.column, "op": "IN", "value": list(p.values)}

    def between(self, p: Between) -> dict[str, Any]:
        return {"column": p.column, "op": "BETWEEN", "value": [p.low, p.high]}

    def conjunction(self, p: And) -> dict[str, Any]:
        return {"and": [c.accept(self) for c in p.children]}

    def disjunction(self, p: Or) -> dict[str, Any]:
        return {"or": [c.accept(self) for c in p.children]}

    def negation(self, p: Not) -> dict[str, Any]:
        return {"not": p.child.accept(self)}


class _Columns:
    def comparison(self, p: Comparison) -> frozenset[str]:
        return frozenset([p.column])

    in_list = between = comparison  # type: ignore[assignment]

    def conjunction(self, p: And) -> frozenset[str]:
        return frozenset().union(*(c.accept(self) for c in p.children))

    disjunction = conjunction  # type: ignore[assignment]

    def negation(self, p: Not) -> frozenset[str]:
        return p.child.accept(self)
