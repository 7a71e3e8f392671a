"""Columns, their order-preserving encoding, and the encoded data the layout algorithms read.

Every layout algorithm works on one float64 matrix: one column per attribute, every value
encoded so that the order of the encoded numbers is the order Spark sees. Categorical values
(strings, booleans) become their rank in the sorted dictionary; dates become days since
1970-01-01; NaN becomes +inf (Spark sorts NaN above every double) and NULL becomes -inf, which
no query box contains, just as no comparison with NULL is TRUE.

>>> import numpy as np
>>> data = LayoutData.from_columns({"qty": np.array([3, 1, 2]), "mode": np.array(["AIR", "SHIP", "AIR"])})
>>> data.schema.names
('qty', 'mode')
>>> data.values[:, 1].tolist()
[0.0, 1.0, 0.0]
"""

from __future__ import annotations

import bisect
import datetime as dt
import math
from dataclasses import dataclass
from enum import Enum
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

EPOCH = dt.date(1970, 1, 1)
EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


class ColumnKind(str, Enum):
    """How a column's values are encoded; decides what "the next smaller value" is.

    >>> from skipstone.layout import ColumnKind
    >>> ColumnKind("date"), ColumnKind.NUMERIC.discrete
    (<ColumnKind.DATE: 'date'>, False)
    """

    NUMERIC = "numeric"
    """Floating point: the next smaller value is nextafter(v, -inf)."""
    INTEGER = "integer"
    """Whole numbers: the next smaller value is v - 1."""
    DATE = "date"
    """Days since 1970-01-01, stored as whole numbers."""
    TIMESTAMP = "timestamp"
    """Microseconds since 1970-01-01 00:00 UTC, whole numbers (exact below 2^53)."""
    CATEGORICAL = "categorical"
    """Rank in the sorted dictionary of values."""

    @property
    def discrete(self) -> bool:
        """Whether values are whole numbers (every kind but NUMERIC)."""
        return self is not ColumnKind.NUMERIC


@dataclass(frozen=True)
class Column:
    """One attribute of the layout.

    >>> Column("mode", ColumnKind.CATEGORICAL, ("AIR", "SHIP")).encode_literal("SHIP")
    1.0
    """

    name: str
    kind: ColumnKind
    categories: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        if self.kind is ColumnKind.CATEGORICAL and list(self.categories) != sorted(self.categories):
            raise ValueError(f"column {self.name!r}: categories must be sorted and unique")

    def encode_literal(self, value: Any) -> float:
        """The encoded position of a literal; for a category not in the dictionary, the
        position half-way between its neighbours (so comparisons stay correct)."""
        if value is None:
            raise ValueError(f"column {self.name!r}: NULL literals match no row; use no predicate")
        if self.kind is ColumnKind.CATEGORICAL:
            left = bisect.bisect_left(self.categories, value)
            if left < len(self.categories) and self.categories[left] == value:
                return float(left)
            return left - 0.5
        if self.kind is ColumnKind.DATE:
            return float(_days(value, self.name))
        if self.kind is ColumnKind.TIMESTAMP:
            return float(_micros(value, self.name))
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"column {self.name!r}: literal {value!r} is not a number") from None
        return math.inf if math.isnan(number) else number

    def interval(self, op: str, value: Any) -> tuple[float, float]:
        """The half-open interval (low, high] of encoded values that satisfy `column op value`.

        >>> Column("q", ColumnKind.INTEGER).interval("<", 5)
        (-inf, 4.0)
        >>> Column("q", ColumnKind.INTEGER).interval(">=", 5)
        (4.0, inf)
        """
        v = self.encode_literal(value)
        exact = self.kind is not ColumnKind.CATEGORICAL or float(v).is_integer()
        if op == "=":
            return (self.previous(v), v) if exact and self._representable(v) else (v, v)
        if op == "<":
            return (-math.inf, self.previous(self._ceil(v)) if self.kind.discrete else self.previous(v))
        if op == "<=":
            return (-math.inf, self._floor(v))
        if op == ">":
            return (self._floor(v), math.inf)
        if op == ">=":
            return (self.previous(self._ceil(v)) if self.kind.discrete else self.previous(v), math.inf)
        raise ValueError(f"column {self.name!r}: unknown comparison {op!r}")

    def previous(self, v: float) -> float:
        """The largest encoded value strictly below v (or just below it for floats)."""
        if math.isinf(v):
            return v
        return v - 1.0 if self.kind.discrete else float(np.nextafter(v, -math.inf))

    def decode(self, v: float) -> Any:
        """A readable form of an encoded value, for docs and plots."""
        if self.kind is ColumnKind.CATEGORICAL and float(v).is_integer() and 0 <= v < len(self.categories):
            return self.categories[int(v)]
        if self.kind is ColumnKind.DATE and not math.isinf(v):
            return (EPOCH + dt.timedelta(days=int(math.floor(v)))).isoformat()
        if self.kind is ColumnKind.TIMESTAMP and not math.isinf(v):
            return (EPOCH_UTC + dt.timedelta(microseconds=int(math.floor(v)))).isoformat()
        return v

    def _representable(self, v: float) -> bool:
        return not self.kind.discrete or float(v).is_integer() or math.isinf(v)

    def _floor(self, v: float) -> float:
        return float(math.floor(v)) if self.kind.discrete and not math.isinf(v) else v

    def _ceil(self, v: float) -> float:
        return float(math.ceil(v)) if self.kind.discrete and not math.isinf(v) else v


@dataclass(frozen=True)
class Schema:
    """The ordered attributes of a layout.

    >>> from skipstone.layout import Column, ColumnKind, Schema
    >>> schema = Schema((Column("ts", ColumnKind.TIMESTAMP), Column("temp", ColumnKind.NUMERIC)))
    >>> schema.index("temp"), schema.to_json()[0]
    (1, {'name': 'ts', 'kind': 'timestamp'})
    """

    columns: tuple[Column, ...]

    def __post_init__(self) -> None:
        names = [c.name for c in self.columns]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"duplicate layout columns: {duplicates}")

    @property
    def names(self) -> tuple[str, ...]:
        """The column names, in order."""
        return tuple(c.name for c in self.columns)

    @property
    def width(self) -> int:
        """The number of columns."""
        return len(self.columns)

    def index(self, name: str) -> int:
        """The position of column ``name``; a KeyError naming the known columns otherwise."""
        for i, column in enumerate(self.columns):
            if column.name == name:
                return i
        raise KeyError(f"unknown layout column {name!r}; known: {', '.join(self.names)}")

    def column(self, name: str) -> Column:
        """The column called ``name``."""
        return self.columns[self.index(name)]

    def to_json(self) -> list[dict[str, Any]]:
        """The columns as the layout JSON stores them: name, kind and categories."""
        return [
            {"name": c.name, "kind": c.kind.value, **({"categories": list(c.categories)} if c.categories else {})}
            for c in self.columns
        ]

    @staticmethod
    def from_json(items: Iterable[Mapping[str, Any]]) -> Schema:
        """The schema ``to_json`` wrote."""
        return Schema(
            tuple(Column(i["name"], ColumnKind(i["kind"]), tuple(i.get("categories", ()))) for i in items)
        )


@dataclass(frozen=True, eq=False)
class LayoutData:
    """Encoded rows: `values[i, j]` is row i's encoded value of `schema.columns[j]`.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData
    >>> data = LayoutData.from_columns({"a": np.array([3.5, 1.0]), "b": np.array([7, 9])})
    >>> data.rows, data.schema.names, data.column("b")
    (2, ('a', 'b'), array([7., 9.]))
    """

    schema: Schema
    values: np.ndarray

    def __post_init__(self) -> None:
        if self.values.ndim != 2 or self.values.shape[1] != self.schema.width:
            raise ValueError(
                f"values have shape {self.values.shape}, expected (rows, {self.schema.width}) "
                f"for columns {self.schema.names}"
            )

    @property
    def rows(self) -> int:
        """The number of rows."""
        return int(self.values.shape[0])

    def column(self, name: str) -> np.ndarray:
        """The encoded values of column ``name``, one per row."""
        return self.values[:, self.schema.index(name)]

    def take(self, index: np.ndarray) -> LayoutData:
        """The rows at ``index`` (positions or a boolean mask), same schema."""
        return LayoutData(self.schema, self.values[index])

    def sample(self, rows: int, seed: int = 0) -> LayoutData:
        """A uniform sample without replacement (all rows if there are fewer)."""
        if rows >= self.rows:
            return self
        pick = np.random.default_rng(seed).choice(self.rows, size=rows, replace=False)
        return self.take(np.sort(pick))

    def encode_rows(self, columns: Mapping[str, Sequence[Any] | np.ndarray]) -> LayoutData:
        """Encode new rows with this schema's dictionaries (e.g. the full table after a sample)."""
        missing = [n for n in self.schema.names if n not in columns]
        if missing:
            raise KeyError(f"rows lack layout columns {missing}")
        encoded = [_encode(c, np.asarray(columns[c.name])) for c in self.schema.columns]
        return LayoutData(self.schema, np.column_stack(encoded).astype(np.float64))

    @staticmethod
    def from_columns(
        columns: Mapping[str, Sequence[Any] | np.ndarray], kinds: Mapping[str, ColumnKind | str] | None = None
    ) -> LayoutData:
        """Encode named columns, inferring each column's kind from its dtype unless given."""
        if not columns:
            raise ValueError("from_columns needs at least one column")
        kinds = dict(kinds or {})
        unknown = sorted(set(kinds) - set(columns))
        if unknown:
            raise KeyError(f"kinds given for columns that are not in the data: {unknown}")
        arrays = {name: np.asarray(values) for name, values in columns.items()}
        lengths = {name: len(a) for name, a in arrays.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"columns have different lengths: {lengths}")
        schema = Schema(
            tuple(_infer_column(name, a, ColumnKind(kinds[name]) if name in kinds else None) for name, a in arrays.items())
        )
        return LayoutData(schema, np.empty((0, schema.width))).encode_rows(arrays)


def _infer_column(name: str, values: np.ndarray, kind: ColumnKind | None) -> Column:
    if kind is None:
        if np.issubdtype(values.dtype, np.datetime64):
            kind = ColumnKind.DATE
        elif np.issubdtype(values.dtype, np.integer):
            kind = ColumnKind.INTEGER
        elif np.issubdtype(values.dtype, np.floating):
            kind = ColumnKind.NUMERIC
        else:
            kind = ColumnKind.CATEGORICAL
    if kind is ColumnKind.CATEGORICAL:
        present = [v for v in values.tolist() if v is not None]
        try:
            return Column(name, kind, tuple(sorted(set(present))))
        except TypeError:
            raise TypeError(f"column {name!r}: categorical values must be mutually comparable") from None
    return Column(name, kind)


def _encode(column: Column, values: np.ndarray) -> np.ndarray:
    if column.kind is ColumnKind.CATEGORICAL:
        lookup = {v: float(i) for i, v in enumerate(column.categories)}
        return np.array([-math.inf if v is None else lookup.get(v, column.encode_literal(v)) for v in values.tolist()])
    if column.kind is ColumnKind.DATE:
        if np.issubdtype(values.dtype, np.datetime64):
            days = values.astype("datetime64[D]")
            out = days.astype(np.int64).astype(np.float64)
            out[np.isnat(days)] = -math.inf
            return out
        return np.array([-math.inf if v is None else float(_days(v, column.name)) for v in values.tolist()])
    if column.kind is ColumnKind.TIMESTAMP:
        if np.issubdtype(values.dtype, np.datetime64):
            micros = values.astype("datetime64[us]")
            out = micros.astype(np.int64).astype(np.float64)
            out[np.isnat(micros)] = -math.inf
            return out
        return np.array([-math.inf if v is None else float(_micros(v, column.name)) for v in values.tolist()])
    nulls = np.array([v is None for v in values.tolist()], dtype=bool) if values.dtype == object else None
    try:
        out = np.array([0.0 if v is None else v for v in values.tolist()], dtype=np.float64) if nulls is not None \
            else values.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"column {column.name!r} of kind {column.kind.value} holds non-numeric values") from None
    out = np.where(np.isnan(out), math.inf, out)
    if nulls is not None:
        out[nulls] = -math.inf
    return out


def _days(value: Any, name: str) -> int:
    if isinstance(value, dt.datetime):
        value = value.date()
    if isinstance(value, str):
        try:
            value = dt.date.fromisoformat(value[:10])
        except ValueError:
            raise ValueError(f"column {name!r}: {value!r} is not an ISO date") from None
    if isinstance(value, dt.date):
        return (value - EPOCH).days
    if isinstance(value, np.datetime64):
        return int(value.astype("datetime64[D]").astype(np.int64))
    if isinstance(value, (int, np.integer)):
        return int(value)
    raise ValueError(f"column {name!r}: {value!r} is not a date")


def _micros(value: Any, name: str) -> int:
    """Microseconds since the epoch; naive datetimes and ISO strings without an offset are UTC,
    as Spark's timestamps are instants (the workload log writes them with a Z)."""
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value.strip().replace(" ", "T", 1))
        except ValueError:
            raise ValueError(f"column {name!r}: {value!r} is not an ISO timestamp") from None
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.timezone.utc)
        delta = value - EPOCH_UTC
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if isinstance(value, dt.date):
        return (value - EPOCH).days * 86_400_000_000
    if isinstance(value, np.datetime64):
        return int(value.astype("datetime64[us]").astype(np.int64))
    if isinstance(value, (int, np.integer)):
        return int(value)
    raise ValueError(f"column {name!r}: {value!r} is not a timestamp")
