"""The base of index types: what is collected per data file, and how it is described to the JVM.

An index type names the metadata it keeps per file ("roles", e.g. ``min`` and ``max``) and
how Spark computes each role as an aggregate over the file's rows. Collection runs all
indexes of a build in one Spark job; the JVM side answers predicates from the stored roles.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Mapping

from skipstone.errors import SkipstoneError

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import DataType

    from skipstone.indexes.rules import Role

_KINDS: dict[str, type[IndexType]] = {}


@dataclass(frozen=True)
class IndexType:
    """Base of all index types; subclasses are frozen dataclasses registered by ``kind``."""

    kind: ClassVar[str] = ""
    roles: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if isinstance(cls.__dict__.get("kind"), str) and cls.kind:
            _KINDS[cls.kind] = cls

    @property
    def columns(self) -> tuple[str, ...]:
        raise NotImplementedError

    def params(self) -> dict[str, str]:
        """Kind-specific settings, stored as strings so every session can read them."""
        return {}

    def check_types(self, types: Mapping[str, DataType], dataset: str) -> None:
        """Raise SkipstoneError if a column's type cannot be indexed by this kind."""

    def aggregates(self, columns: Mapping[str, Column]) -> dict[str, Column]:
        """Spark aggregate expressions per role, over the file's rows."""
        raise NotImplementedError

    def per_file(self) -> dict[str, Role]:
        """Roles computed by a Python function over each file's rows (what SQL cannot express)."""
        return {}

    def describe(self) -> str:
        return f"{type(self).__name__}({', '.join(self.columns)})"

    @staticmethod
    def from_spec(kind: str, columns: list[str], params: Mapping[str, str]) -> IndexType:
        """Rebuild an index from its stored definition (used by ``refresh``)."""
        if kind not in _KINDS:
            from skipstone.indexes.defined import StoredRuleIndex
            from skipstone.indexes.rules import is_rule_based

            if is_rule_based(params):
                return StoredRuleIndex.of(kind, columns, params)
            raise SkipstoneError(f"index kind '{kind}' is not known to this version of Skipstone")
        return _KINDS[kind].from_stored(columns, params)

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> IndexType:
        return cls(*columns)  # type: ignore[call-arg]
