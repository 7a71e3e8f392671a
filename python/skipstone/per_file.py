"""Roles computed by Python functions, which the JVM build path joins to its own.

The JVM computes every role written in SQL (one Spark job for all indexes of a build). What
SQL cannot express (clustering a file's points, a Python function as ``Formatted``'s ``fn``)
is computed here, per data file, and handed to the JVM as a DataFrame of ``path`` and the
roles' metadata columns. This is a second pass over the indexed columns only, and happens
only for builds that have such roles.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from skipstone.errors import SkipstoneError

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import Column, DataFrame

    from skipstone.indexes import IndexType


def canonical_path(path: Column) -> Column:
    """The JVM's canonical spelling of a file URI: ``file:///a`` and ``file:/a`` are one file."""
    from pyspark.sql import functions as F

    return F.regexp_replace(path, r"^([A-Za-z][A-Za-z0-9+.\-]*):///", "$1:/")


def column_of(parts: Sequence[str]) -> Column:
    """The Spark column at an exact schema path (each part quoted, whatever it contains), as the
    JVM's ``ColumnPath.sql`` writes it. Which path a name means is decided once, by the JVM
    (``IndexBuild.plan``'s ``columnPaths``); this only spells the path for pyspark."""
    from pyspark.sql import functions as F

    return F.col(".".join("`" + p.replace("`", "``") + "`" for p in parts))


def needs_python(indexes: Sequence[IndexType]) -> bool:
    """Whether any index has a role only Python can compute."""
    return any(ix.needs_python() for ix in indexes)


def python_roles(data: DataFrame, indexes: Sequence[IndexType], plan: Sequence[Mapping[str, Any]]) -> DataFrame | None:
    """One row per file of ``data``: ``path`` and every Python-computed role, or None if none.

    ``plan`` is the JVM's view of ``indexes`` (IndexBuild.plan): resolved column paths, settled
    params and metadata column names.
    """
    from pyspark.sql import functions as F

    columns = {name: column_of(parts) for entry in plan for name, parts in zip(entry["columns"], entry["columnPaths"])}
    path = canonical_path(F.col("_metadata.file_path")).alias("path")
    frames = []
    aggregates = [expression.alias(entry["metadataColumns"][role])
                  for ix, entry in zip(indexes, plan)
                  for role, expression in ix.python_roles(columns, entry["params"]).items()]
    if aggregates:
        frames.append(data.groupBy(path).agg(*aggregates))
    grouped = _grouped_roles(data, path, indexes, plan, columns)
    if grouped is not None:
        frames.append(grouped)
    if not frames:
        return None
    joined = frames[0]
    for frame in frames[1:]:
        joined = joined.join(frame, "path", "full")
    return joined


def _grouped_roles(data: DataFrame, path: Column, indexes: Sequence[IndexType], plan: Sequence[Mapping[str, Any]],
                   columns: Mapping[str, Column]) -> DataFrame | None:
    """Roles computed by a grouped-map pandas UDF, one call per file (``Role(per_file=...)``)."""
    jobs = [(entry["metadataColumns"][name], ix, role)
            for ix, entry in zip(indexes, plan) for name, role in ix.per_file().items()]
    if not jobs:
        return None
    names = sorted({c for _, ix, _ in jobs for c in ix.columns})
    alias = {n: f"c{i}" for i, n in enumerate(names)}
    selected = data.select(path, *[columns[n].alias(alias[n]) for n in names])
    schema = ", ".join(["path string"] + [f"`{column}` {role.type}" for column, _, role in jobs])

    def summarize(rows: pd.DataFrame) -> pd.DataFrame:
        import pandas as pd

        out: dict[str, Any] = {"path": rows["path"].iloc[0]}
        for column, ix, role in jobs:
            frame = rows[[alias[c] for c in ix.columns]].set_axis(list(ix.columns), axis=1)
            try:
                out[column] = role.per_file(frame)  # type: ignore[misc]
            except Exception as e:
                raise SkipstoneError(f"{ix.describe()} failed to compute role '{role.name}' "
                                     f"for file {out['path']}: {e}") from e
        return pd.DataFrame([out])

    return selected.groupBy("path").applyInPandas(summarize, schema)
