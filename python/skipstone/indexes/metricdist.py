"""MetricDist: per file the range of distances of a column's values to an origin.

For any metric d, the triangle inequality bounds the distance of every value x of a file to
a query point q by what is stored: |d(x, o) - d(q, o)| <= d(x, q) <= d(x, o) + d(q, o). So a
file whose values all lie at distance [lo, hi] from the origin o holds no x with
d(x, q) < r when max(lo - d(q, o), d(q, o) - hi) >= r.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from skipstone.errors import SkipstoneError
from skipstone.indexes.defined import RuleIndex


@dataclass(frozen=True)
class Metric:
    """A distance as queries call it (``udf``) and as SQL computes it (``sql`` over ``{a}``, ``{b}``).

    The JVM evaluates ``sql`` for the query point, so both must compute the same distance;
    ``tolerance`` absorbs floating-point differences between them, relative to the distances
    compared (1e-9: a billionth of the largest of them). Integer metrics need none.

    >>> Metric.levenshtein().udf
    'levenshtein'
    """

    udf: str
    sql: str
    tolerance: float = 0.0

    @staticmethod
    def levenshtein() -> Metric:
        """Spark's built-in edit distance on strings."""
        return Metric("levenshtein", "levenshtein({a}, {b})")

    @staticmethod
    def euclidean(udf: str = "euclidean") -> Metric:
        """Euclidean distance of numeric arrays, queried through a UDF named ``udf``."""
        return Metric(udf, "sqrt(aggregate(zip_with({a}, {b}, (p, q) -> (p - q) * (p - q)), 0D, (s, t) -> s + t))",
                      tolerance=1e-9)


@dataclass(frozen=True)
class MetricDist(RuleIndex):
    """Per file the smallest and largest distance of ``column``'s values to ``origin``.

    Answers ``dist(column, q) < r`` (and ``<=``, ``>``, ``>=``, ``=``, BETWEEN, either
    argument order, either side of the comparison) where ``dist`` is ``metric.udf``.
    Skips well when files hold values near each other (clustered data) and the origin is
    not equidistant from everything.

    >>> from skipstone import MetricDist, Metric
    >>> MetricDist("name", Metric.levenshtein(), "").describe()
    "MetricDist(name, levenshtein, '')"
    """

    column: str
    metric: Metric
    origin: Any
    kind: ClassVar[str] = "metricdist"

    def __post_init__(self) -> None:
        if isinstance(self.origin, list):  # frozen values must hash: a vector becomes a tuple
            object.__setattr__(self, "origin", tuple(self.origin))

    @property
    def origin_sql(self) -> str:
        """``origin`` written as a SQL literal (a ``SqlText`` as it is)."""
        return sql_literal(self.origin)

    def params(self) -> dict[str, str]:
        # The JVM writes the roles and rules (io.skipstone.indexing.MetricDistKind).
        return self.settings()

    def settings(self) -> dict[str, str]:
        return {"metric.udf": self.metric.udf, "metric.sql": self.metric.sql,
                "metric.tolerance": repr(self.metric.tolerance), "origin": self.origin_sql}

    def describe(self) -> str:
        return f"MetricDist({self.column}, {self.metric.udf}, {self.origin_sql})"

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> MetricDist:
        metric = Metric(params["metric.udf"], params["metric.sql"], float(params.get("metric.tolerance", "0")))
        return cls(columns[0], metric, SqlText(params["origin"]))


@dataclass(frozen=True)
class SqlText:
    """A value already written as SQL, e.g. ``SqlText("array(0D, 0D)")``: stored as it is where a
    plain Python value would be turned into a SQL literal.

    >>> from skipstone import Metric, MetricDist, SqlText
    >>> MetricDist("name", Metric.levenshtein(), SqlText("lower('Origin')")).origin_sql
    "lower('Origin')"
    >>> MetricDist("name", Metric.levenshtein(), "Origin").origin_sql
    "'Origin'"
    """

    sql: str


def sql_literal(value: Any) -> str:
    """SQL text for a Python constant: strings, numbers, lists of them, or SqlText."""
    if isinstance(value, SqlText):
        return value.sql
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise SkipstoneError(f"MetricDist origin {value!r} must be finite")
        return f"{value!r}D"
    if isinstance(value, (list, tuple)):
        return "array(" + ", ".join(sql_literal(float(v) if isinstance(v, int) else v) for v in value) + ")"
    raise SkipstoneError(f"MetricDist origin {value!r} is not a string, number or list of numbers")
