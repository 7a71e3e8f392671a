"""Roles computed by Python functions, one call per data file (e.g. GeoBox's boxes).

SQL aggregates cannot express everything (clustering a file's points, parsing with a
library); such roles are computed by a grouped-map pandas UDF over the indexed columns and
joined to the SQL aggregates by file path. This is a second pass over those columns only,
and happens only for builds that have such roles.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from skipstone.errors import SkipstoneError

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import Column, DataFrame

    from skipstone.indexes import IndexType


def collect_per_file(data: DataFrame, indexes: Sequence[IndexType],
                     columns: Mapping[str, Column]) -> DataFrame | None:
    """One row per file: ``path`` and every Python-computed role, or None if there are none."""
    from pyspark.sql import functions as F

    from skipstone.collect import canonical_path, metadata_column

    jobs = [(metadata_column(pos, ix, name), ix, role)
            for pos, ix in enumerate(indexes) for name, role in ix.per_file().items()]
    if not jobs:
        return None
    names = sorted({c for _, ix, _ in jobs for c in ix.columns})
    alias = {n: f"c{i}" for i, n in enumerate(names)}
    selected = data.select(canonical_path(F.col("_metadata.file_path")).alias("path"),
                           *[columns[n].alias(alias[n]) for n in names])
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
