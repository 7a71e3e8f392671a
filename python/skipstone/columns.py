"""Column names as users write them, resolved once to exact schema paths.

A path is the tuple of field names from the top-level column down: ``("a", "b")`` is field
``b`` of struct ``a``, ``("a.b",)`` the top-level column literally named ``a.b``. Indexes store
paths, never dotted strings, so the JVM can tell the two apart. Names follow Spark SQL:
backticks quote a part (```a.b``` is the top-level column), and ``spark.sql.caseSensitive``
decides whether ``Temp`` names ``temp``.

>>> from pyspark.sql.types import StructType, StructField, IntegerType
>>> schema = StructType([StructField("a.b", IntegerType()), StructField("x", IntegerType())])
>>> resolve("a.b", schema, case_sensitive=False, dataset="d").parts
('a.b',)
>>> split_name("s.`b.c`")
('s', 'b.c')
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from skipstone.errors import SkipstoneError

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import DataType, StructType


@dataclass(frozen=True)
class ResolvedColumn:
    """A column as the user named it, its exact path in the schema, and its type."""

    name: str
    parts: tuple[str, ...]
    data_type: DataType

    def expression(self) -> Column:
        """The Spark column for this exact path (each part quoted, whatever it contains)."""
        from pyspark.sql import functions as F

        return F.col(".".join("`" + p.replace("`", "``") + "`" for p in self.parts))


def split_name(name: str) -> tuple[str, ...]:
    """Split a Spark SQL column name on dots outside backticks; ```` `` ```` is a literal backtick."""
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    i = 0
    while i < len(name):
        c = name[i]
        if c == "`":
            if quoted and i + 1 < len(name) and name[i + 1] == "`":
                current.append("`")
                i += 1
            else:
                quoted = not quoted
        elif c == "." and not quoted:
            parts.append("".join(current))
            current = []
        else:
            current.append(c)
        i += 1
    if quoted:
        raise SkipstoneError(f"column name {name!r} has an unclosed backtick")
    parts.append("".join(current))
    if any(p == "" for p in parts):
        raise SkipstoneError(f"column name {name!r} has an empty part")
    return tuple(parts)


def _find(schema: StructType, parts: tuple[str, ...], case_sensitive: bool,
          name: str, dataset: str) -> tuple[tuple[str, ...], DataType] | None:
    """The exact path and type at ``parts``, None if absent; an error if a part is ambiguous."""
    from pyspark.sql.types import StructType as Struct

    exact: list[str] = []
    current: DataType = schema
    for part in parts:
        if not isinstance(current, Struct):
            return None
        same = [f for f in current.fields
                if (f.name == part if case_sensitive else f.name.lower() == part.lower())]
        if not same:
            return None
        if len(same) > 1:
            raise SkipstoneError(
                f"column '{name}' of dataset {dataset} is ambiguous: {', '.join(f.name for f in same)} "
                "differ only in case; set spark.sql.caseSensitive=true to tell them apart")
        exact.append(same[0].name)
        current = same[0].dataType
    return tuple(exact), current


def resolve(name: str, schema: StructType, case_sensitive: bool, dataset: str) -> ResolvedColumn:
    """The exact column ``name`` denotes in ``schema``, or an error naming it and the dataset."""
    parts = split_name(name)
    nested = _find(schema, parts, case_sensitive, name, dataset)
    # Unquoted `a.b` may also mean a top-level column whose name has dots in it.
    whole = _find(schema, (name,), case_sensitive, name, dataset) if "`" not in name and len(parts) > 1 else None
    if nested and whole:
        raise SkipstoneError(
            f"column '{name}' of dataset {dataset} is ambiguous: it is both a top-level column and a "
            f"nested field; write `{name}` (in backticks) for the top-level column or "
            f"{'.'.join('`' + p + '`' for p in parts)} for the field")
    found = nested or whole
    if found is None:
        available = ", ".join(schema.fieldNames())
        raise SkipstoneError(f"column '{name}' does not exist in dataset {dataset} (columns: {available})")
    return ResolvedColumn(name, found[0], found[1])
