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

if TYPE_CHECKING:
    from pyspark.sql import Column


def function_digest(fn: Callable[[Any], Any], return_type: str) -> str:
    """SHA-256 of the command pyspark ships to executors for ``fn`` as a UDF returning ``return_type``.

    Queries answer a UDF by its registered name; the JVM compares this digest with the digest
    of the query's UDF (io.skipstone.clauses.rules.FunctionIdentity), so a name registered
    again with another body is not answered by values the old body computed.
    """
    import hashlib

    from pyspark.serializers import CloudPickleSerializer
    from pyspark.sql.types import _parse_datatype_string

    return hashlib.sha256(CloudPickleSerializer().dumps((fn, _parse_datatype_string(return_type)))).hexdigest()


@dataclass(frozen=True)
class Formatted(RuleIndex):
    """Per file the distinct values of ``fn(column)``.

    ``fn`` is a Python function, registered in query sessions as a UDF named ``name``
    (``spark.udf.register(name, fn)``), or SQL over ``{col}`` such as ``"lower({col})"``.
    Answers ``fn(column) = v``, ``IN``, and for ordered results ``<``, ``<=``, ``>``, ``>=``,
    and their negations, with the function called by the same name in the query. Over a
    VARIANT column, ``"variant_get({col}, '$.a', 'int')"`` indexes one path. ``fn`` must be deterministic: the values indexed are the
    values queries will compute.

    ``type`` is the result type of ``fn``. Left out, it is found at build: the type of the SQL
    over the column, or the return type of the UDF registered as ``name`` (``string`` if none
    is registered). Given, it must be that type, since values of another type would be
    compared differently than queries compare them. The build checks it, and writes the
    index's roles and rules.

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

    def params(self) -> dict[str, str]:
        # The JVM writes the roles and rules (io.skipstone.indexing.FormattedKind) and settles the type.
        if not callable(self.fn):
            return self.settings()
        return {**self.settings(), "functionDigest": function_digest(self.fn, self.type or "string")}

    def needs_python(self) -> bool:
        return callable(self.fn)

    def python_roles(self, columns: Mapping[str, Column], params: Mapping[str, str]) -> dict[str, Column]:
        if not callable(self.fn):
            return {}
        from pyspark.sql import functions as F

        # The build calls fn itself, so it need not be registered in the building session.
        result_type = params.get("type") or "string"
        values = F.udf(self.fn, result_type)(columns[self.column])
        return {"values": F.array_sort(F.collect_set(values)).cast(f"array<{result_type}>")}

    def settings(self) -> dict[str, str]:
        given = {} if self.type is None else {"type": self.type}
        return {"expression": self.expression, "name": self.name or "", **given}

    def describe(self) -> str:
        return f"Formatted({self.column}, {self.name or self.fn})"

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> Formatted:
        # A Python fn is found again by the UDF name it was registered under.
        return cls(columns[0], params["expression"], params.get("name") or None, params.get("type") or None)
