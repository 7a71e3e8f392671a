"""append: new rows routed through the current layout into new files, indexed, committed."""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from skipstone.errors import SkipstoneError
from skipstone.layout.serialization import layout_to_json
from skipstone.per_file import column_of
from skipstone.table import failpoints, manifest
from skipstone.table.container import delete, new_staging_dir, relative
from skipstone.table.create import MAX_BLOCK_FACTOR, with_actual_rows
from skipstone.table.indexing import replace_metadata
from skipstone.table.failures import failure_reason
from skipstone.table.lease import writer_lease
from skipstone.table.optimize import OptimizeResult
from skipstone.table.writer import WrittenFile, write_blocks

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

# An append loses its commit only to a concurrent layout change (an optimize); it then routes
# its rows again through the winner's layout. Appends do not conflict with each other's files,
# but each one updates the layout's row counts, so a burst of appends may need several tries.
MAX_ATTEMPTS = 5


@dataclass(frozen=True)
class AppendResult:
    """What one append committed (it is also a row of ``history()``). With ``optimize.auto``,
    ``optimize`` is what the iteration run after the commit committed, and ``optimize_error`` why
    it failed: the append is committed either way, so a caller must not retry it."""

    version: int
    rows: int
    files_added: int
    optimize: OptimizeResult | None = None
    optimize_error: str | None = None


def append_rows(spark: SparkSession, root: str, df: DataFrame) -> AppendResult:
    last: SkipstoneError | None = None
    for _ in range(MAX_ATTEMPTS):
        base = manifest.latest(spark, root)
        if base is None:
            raise SkipstoneError(f"{root} is not a Skipstone table; create it with Skipstone.create")
        try:
            version, rows, files = route_and_commit(spark, base, df, "APPEND", "append", {})
            return AppendResult(version, rows, files)
        except SkipstoneError as e:
            if "was not committed" not in str(e):
                raise
            last = e
    raise SkipstoneError(f"append to {root} lost {MAX_ATTEMPTS} commits to concurrent changes: {last}")


def route_and_commit(spark: SparkSession, base: manifest.TableVersion, df: DataFrame, operation: str, step: str,
                     info: dict[str, Any], absorbed: Sequence[str | Mapping[str, Any]] = ()) -> tuple[int, int, int]:
    """Route ``df``'s rows through ``base``'s layout into new files of their blocks, index them,
    and commit ``operation`` (with ``absorbed``: the unindexed files whose rows these are).
    Failpoints ``<step>.afterWrite``, ``.afterMetadata``, ``.afterCommit``. Returns the version
    committed, the rows and the files added: the files hold exactly the rows routed, checked
    before the commit, or nothing is committed and a SkipstoneError says why."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    started = time.monotonic()
    root = base.root
    schema = StructType.fromJson(json.loads(base.properties["schema"]))
    routed = Observation(f"skipstone-{step}")
    rows = _conformed(df, schema, root).observe(routed, F.count(F.lit(1)).alias("rows"))
    tree = base.tree
    types = {c.name: schema[c.name].dataType for c in tree.schema.columns}
    staging = new_staging_dir(root, "append")
    written: list[WrittenFile] = []
    what = f"{operation.lower()} to {root}" if operation == "APPEND" else f"{operation.lower()} of {root}"
    # the lease keeps a concurrent vacuum, even a forced one, off the files not committed yet
    with writer_lease(spark, root, step, staging, base.version):
        try:
            written = write_blocks(spark, rows, tree, types, tree.block_ids.tolist(), staging, root,
                                   math.ceil(MAX_BLOCK_FACTOR * float(base.properties["layout.blockRows"])))
            expected = int(routed.get["rows"])  # the write succeeded: the metrics are there
            failpoints.check(spark, f"{step}.afterWrite")
            live = [(base.absolute(f), f.size, f.modification_time) for f in base.files]
            new = [(w.path, w.size, w.mtime) for w in written]
            metadata_version, counts = replace_metadata(spark, root, live + new, new, schema) if written else \
                (base.metadata_version, {})
            failpoints.check(spark, f"{step}.afterMetadata")
            added = [manifest.DataFile(relative(root, w.path), w.size, w.mtime, w.block, counts[w.path]) for w in written]
            appended = sum(f.rows for f in added)
            if appended != expected:
                raise SkipstoneError(f"{what}: {expected} rows were routed but the files written hold {appended} "
                                     "(were files deleted meanwhile?); nothing was committed")
            info = {**info, "rows": appended, "filesAdded": len(added),
                    "durationMs": round(1000 * (time.monotonic() - started), 1)}
            committed = manifest.commit(spark, root, base.version, operation, added,
                                        layout=layout_to_json(with_actual_rows(tree, list(base.files) + added)),
                                        metadata_version=metadata_version, commit_info=info, absorbed=absorbed)
        except Exception as e:
            for w in written:  # ours alone, and no version lists them
                delete(spark, w.path)
            delete(spark, staging)
            if isinstance(e, SkipstoneError):
                raise
            raise SkipstoneError(f"{what} failed and committed nothing: {failure_reason(e)}") from e
    failpoints.check(spark, f"{step}.afterCommit")
    delete(spark, staging)
    return committed.version, appended, len(added)


def _conformed(df: DataFrame, schema: object, root: str) -> DataFrame:
    """``df``'s columns in the table's order; a missing column or a different type is refused.
    Names match exactly, or, in a case-insensitive session, in another case when only one of
    ``df``'s columns does (a table may hold both `Mixed` and `mixed`)."""
    from pyspark.sql.types import StructType

    assert isinstance(schema, StructType)
    case_sensitive = df.sparkSession.conf.get("spark.sql.caseSensitive", "false").lower() == "true"
    exact = {f.name: f for f in df.schema.fields}
    by_lower: dict[str, list] = {}
    for f in df.schema.fields:
        by_lower.setdefault(f.name.lower(), []).append(f)
    columns, used = [], set()
    for f in schema.fields:
        found = exact.get(f.name)
        if found is None and not case_sensitive and len(by_lower.get(f.name.lower(), [])) == 1:
            found = by_lower[f.name.lower()][0]
        if found is None:
            raise SkipstoneError(f"append to {root}: column {f.name} ({f.dataType.simpleString()}) is missing")
        if found.dataType != f.dataType:
            raise SkipstoneError(f"append to {root}: column {f.name} is {found.dataType.simpleString()}, "
                                 f"the table's is {f.dataType.simpleString()}")
        used.add(found.name)
        columns.append(column_of([found.name]).alias(f.name))
    extra = sorted(n for n in exact if n not in used)
    if extra:
        raise SkipstoneError(f"append to {root}: columns {extra} are not in the table")
    return df.select(*columns)
