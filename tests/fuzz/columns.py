"""The columns a query sees, as Spark read them (types are inferred for CSV and JSON)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Leaf:
    """A leaf column: its path, how SQL names it, Spark's type and the values it holds."""

    path: tuple[str, ...]
    type_name: str            # Spark's simple type name: int, bigint, decimal(10,2), double, ...
    values: list[Any] = field(default_factory=list)   # distinct non-NULL values, NaN included
    partition: bool = False

    @property
    def sql(self) -> str:
        return ".".join(f"`{p}`" for p in self.path)

    @property
    def index_name(self) -> str | None:
        """The name Skipstone's API takes: every part in backticks, so a top-level `a.b` and the
        struct field a.b are told apart."""
        return ".".join("`" + p.replace("`", "``") + "`" for p in self.path)

    @property
    def family(self) -> str:
        t = self.type_name
        if t in ("tinyint", "smallint", "int", "bigint"):
            return "integral"
        if t.startswith("decimal"):
            return "decimal"
        if t in ("float", "double"):
            return "floating"
        if t == "date":
            return "date"
        if t == "timestamp":
            return "timestamp"
        if t == "timestamp_ntz":
            return "timestamp_ntz"
        if t == "string":
            return "string"
        if t == "boolean":
            return "boolean"
        return "other"


def leaves(df: Any, partition_columns: set[str]) -> list[Leaf]:
    """Every primitive column of ``df`` (struct fields flattened) with its distinct values."""
    from pyspark.sql.types import StructType

    found: list[Leaf] = []

    def walk(prefix: tuple[str, ...], struct: StructType) -> None:
        for f in struct.fields:
            path = prefix + (f.name,)
            if isinstance(f.dataType, StructType):
                walk(path, f.dataType)
            else:
                found.append(Leaf(path, f.dataType.simpleString(), partition=path[0] in partition_columns and len(path) == 1))

    walk((), df.schema)
    if not found:
        return found
    from pyspark.sql import functions as F

    cols = [F.col(leaf.sql) for leaf in found]
    rows = df.select(*cols).collect()
    for n, leaf in enumerate(found):
        seen: dict[Any, Any] = {}
        for r in rows:
            v = r[n]
            if v is None:
                continue
            key = "NaN" if isinstance(v, float) and math.isnan(v) else (type(v).__name__, v)
            seen.setdefault(key, v)
        leaf.values = list(seen.values())
    return found
