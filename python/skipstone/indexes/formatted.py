"""Formatted: a value list over ``fn(col)``, for predicates on the same function.

Log columns hide structure (a user agent's browser, a URL's host) that queries reach
through a function; indexing the function's values per file answers ``fn(col) = v`` and
``fn(col) IN (...)`` without adding a column to the data.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping

from skipstone.errors import SkipstoneError
from skipstone.indexes.defined import RuleIndex
from skipstone.indexes.rules import Role, Rule, substitute_columns

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import DataType


@dataclass(frozen=True)
class Formatted(RuleIndex):
    """Per file the distinct values of ``fn(column)``.

    ``fn`` is a Python function, registered in query sessions as a UDF named ``name``
    (``spark.udf.register(name, fn)``), or SQL over ``{col}`` such as ``"lower({col})"``.
    Answers ``fn(column) = v``, ``IN`` and their negations, with the function called by
    the same name in the query. ``fn`` must be deterministic: the values indexed are the
    values queries will compute.

    ``type`` is the result type of ``fn``. Left out, it is found at build: the type of the SQL
    over the column, or the return type of the UDF registered as ``name`` (``string`` if none
    is registered). Given, it must be that type, since values of another type would be
    compared differently than queries compare them.

    >>> from skipstone import Formatted
    >>> Formatted("user_agent", lambda ua: ua.split("/")[0], "agent_name").describe()
    'Formatted(user_agent, agent_name)'
    >>> Formatted("url", "lower({col})").describe()
    'Formatted(url, lower({col}))'
    """

    column: str
    fn: Callable[[Any], Any] | str
    name: str | None = None
    type: str | None = None
    kind: ClassVar[str] = "formatted"

    def __post_init__(self) -> None:
        if callable(self.fn) and not self.name:
            object.__setattr__(self, "name", getattr(self.fn, "__name__", None))
        if callable(self.fn) and (not self.name or self.name == "<lambda>"):
            raise SkipstoneError(f"Formatted({self.column}) needs name= : the UDF name queries call fn by")
        if isinstance(self.fn, str) and "{col}" not in self.fn:
            raise SkipstoneError(f"Formatted({self.column}): SQL fn '{self.fn}' must use {{col}} for the column")

    @property
    def expression(self) -> str:
        """The function applied to the column as queries write it, with ``{col}``."""
        return self.fn if isinstance(self.fn, str) else f"{self.name}({{col}})"

    @property
    def result_type(self) -> str:
        return self.type or "string"

    def role_definitions(self) -> tuple[Role, ...]:
        return (Role("values", f"array<{self.result_type}>", f"array_sort(collect_set({self.expression}))"),)

    def rule_definitions(self) -> tuple[Rule, ...]:
        e = self.expression
        return (
            Rule(f"{e} = {{v}}", "array_contains({values}, {v})", "exists({values}, x -> x <> {v})"),
            Rule(f"{e} IN ({{vs}})", "arrays_overlap({values}, {vs})",
                 "exists({values}, x -> NOT array_contains({vs}, x))"),
        )

    def aggregates(self, columns: Mapping[str, Column]) -> dict[str, Column]:
        if isinstance(self.fn, str):
            return super().aggregates(columns)
        from pyspark.sql import functions as F

        # The build calls fn itself, so it need not be registered in the building session.
        values = F.udf(self.fn, self.result_type)(columns[self.column])
        return {"values": F.array_sort(F.collect_set(values)).cast(f"array<{self.result_type}>")}

    def check_types(self, types: Mapping[str, DataType], dataset: str) -> None:
        """Also settles ``type``: a UDF returning int whose values were kept as strings would
        never match a query's int constant, so nothing would be skipped."""
        from pyspark.sql.types import DataType

        super().check_types(types, dataset)
        found = self._computed_type(types[self.column])
        if self.type is None:
            # the one place the definition learns the data's types; frozen otherwise
            object.__setattr__(self, "type", found.simpleString() if found is not None else "string")
        elif found is not None and DataType.fromDDL(self.type) != found:
            raise SkipstoneError(f"{self.describe()} on dataset {dataset}: type='{self.type}' but "
                                 f"{self.expression.replace('{col}', self.column)} returns "
                                 f"{found.simpleString()}; pass type='{found.simpleString()}' or leave it out")

    def _computed_type(self, column_type: DataType) -> DataType | None:
        """The type queries see for ``fn(column)``; None for a Python fn not registered here."""
        from pyspark.errors import AnalysisException
        from pyspark.sql import SparkSession
        from pyspark.sql import functions as F
        from pyspark.sql.types import StructField, StructType

        spark = SparkSession.getActiveSession()
        if spark is None or (callable(self.fn) and not spark.catalog.functionExists(str(self.name))):
            return None
        # analysis only, over no rows: no Spark job
        empty = spark.createDataFrame([], StructType([StructField("c", column_type)]))
        try:
            return empty.select(F.expr(substitute_columns(self.expression, ("c",)))).schema[0].dataType
        except AnalysisException as e:
            raise SkipstoneError(f"{self.describe()}: '{self.expression}' does not resolve on the column: {e}") from e

    def settings(self) -> dict[str, str]:
        return {"expression": self.expression, "name": self.name or "", "type": self.result_type}

    def describe(self) -> str:
        return f"Formatted({self.column}, {self.name or self.fn})"

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> Formatted:
        # A Python fn is found again by the UDF name it was registered under.
        return cls(columns[0], params["expression"], params.get("name") or None, params.get("type") or None)
