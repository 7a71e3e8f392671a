"""optimize: a policy proposes a tree change from the logged workload; only the blocks it
replaces are read and rewritten; the result is committed atomically, or not at all."""
from __future__ import annotations

import json
import math
import time
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from skipstone.errors import SkipstoneError
from skipstone.layout.policies import LayoutChange, LayoutPolicy
from skipstone.layout.queries import Query
from skipstone.layout.serialization import layout_to_json
from skipstone.table import failpoints, manifest
from skipstone.table.container import delete, new_staging_dir, read_sample, relative
from skipstone.table.create import MAX_BLOCK_FACTOR, with_actual_rows
from skipstone.table.indexing import replace_metadata
from skipstone.table.failures import failure_reason
from skipstone.table.lease import writer_lease
from skipstone.table.writer import WrittenFile, write_blocks

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@dataclass(frozen=True, eq=False)
class OptimizePlan:
    """A change planned against one version, not yet written."""

    base: manifest.TableVersion
    change: LayoutChange
    policy: str


@dataclass(frozen=True)
class OptimizeResult:
    """What one optimize iteration committed (it is also a row of ``history()``): the strategy
    that selected the work (``unindexed``, ``compaction`` or ``layout``), why, and what it cost."""

    version: int
    benefit: float
    cost: float
    rows_rewritten: int
    files_added: int
    files_removed: int
    strategy: str = "layout"
    reason: str = ""
    bytes_read: int = 0


def workload_queries(workload: DataFrame, base: manifest.TableVersion) -> list[Query]:
    """The logged predicates as the layout's queries, oldest first; ones it cannot read are skipped."""
    schema = base.tree.schema
    out = []
    for r in workload.where("predicate IS NOT NULL").orderBy("time").select("predicate").collect():
        try:
            out.append(Query.from_json(json.loads(r.predicate), schema))
        except (ValueError, TypeError, KeyError) as e:
            warnings.warn(f"Skipstone: ignoring logged predicate {r.predicate}: {e}", stacklevel=2)
    return out


def plan(spark: SparkSession, base: manifest.TableVersion, workload: DataFrame, policy: LayoutPolicy) -> OptimizePlan | None:
    tree = base.tree
    sample = read_sample(spark, base.root, base.properties["layout.sample"], tree.schema)
    for_table = getattr(policy, "for_table", None)
    if callable(for_table):  # policies that need the table's target block size (PawRebuild)
        policy = for_table(float(base.properties["layout.blockRows"]))
    with_bytes = getattr(policy, "with_bytes_per_row", None)
    if callable(with_bytes):  # policies that price bytes (SparkCost) take the table's measured row width
        policy = with_bytes(sum(f.size for f in base.files) / max(1, sum(f.rows for f in base.files)))
    change = policy.propose(tree, workload_queries(workload, base), sample)
    if change is None or not change.rewritten_blocks:
        return None
    gone = set(tree.block_ids.tolist()) - set(change.tree.block_ids.tolist())
    if gone != set(change.rewritten_blocks):
        raise SkipstoneError(f"policy {policy.name} lists blocks {sorted(change.rewritten_blocks)} as rewritten, "
                             f"but its tree drops blocks {sorted(gone)}")
    return OptimizePlan(base, change, policy.name)


def apply(spark: SparkSession, p: OptimizePlan, reason: str = "") -> OptimizeResult:
    """Rewrite the plan's blocks and commit; if a concurrent commit conflicts, remove what was
    written and raise (the table is as the winner left it)."""
    from pyspark.sql.types import StructType

    started = time.monotonic()
    base, change, root = p.base, p.change, p.base.root
    old = base.files_of(change.rewritten_blocks)
    schema = StructType.fromJson(json.loads(base.properties["schema"]))
    types = {c.name: schema[c.name].dataType for c in change.tree.schema.columns}
    new_blocks = sorted(set(change.tree.block_ids.tolist()) - set(base.tree.block_ids.tolist()))
    staging = new_staging_dir(root, "optimize")
    published: set[str] = set()  # the files our metadata version covers, once published
    written: list[WrittenFile] = []
    # the lease keeps a concurrent vacuum, even a forced one, off the files not committed yet
    with writer_lease(spark, root, "optimize", staging, base.version):
        try:
            if old:
                rows = spark.read.schema(schema).parquet(*[base.absolute(f) for f in old])
                block_rows = float(base.properties["layout.blockRows"])
                written = write_blocks(spark, rows, change.tree, types, new_blocks, staging, root,
                                       math.ceil(MAX_BLOCK_FACTOR * block_rows))
            failpoints.check(spark, "optimize.afterWrite")
            removed = {f.path for f in old}
            live = [(base.absolute(f), f.size, f.modification_time) for f in base.files if f.path not in removed]
            added_files = [(w.path, w.size, w.mtime) for w in written]
            metadata_version, counts = replace_metadata(spark, root, live + added_files, added_files, schema)
            published = {path for path, _, _ in live + added_files}
            failpoints.check(spark, "optimize.afterMetadata")
            added = [manifest.DataFile(relative(root, w.path), w.size, w.mtime, w.block, counts[w.path]) for w in written]
            kept = [f for f in base.files if f.path not in removed]
            tree = with_actual_rows(change.tree, kept + added)
            rows_rewritten = sum(f.rows for f in old)
            info = {"strategy": "layout", "reason": reason or change.description, "selected": sorted(f.path for f in old),
                    "bytesRead": sum(f.size for f in old), "policy": p.policy, "benefit": change.benefit, "cost": change.cost, "rowsRewritten": rows_rewritten,
                    "filesAdded": len(added), "filesRemoved": len(old), "blocksRewritten": list(change.rewritten_blocks),
                    "blocksAdded": new_blocks, "description": change.description,
                    "durationMs": round(1000 * (time.monotonic() - started), 1)}
            committed = manifest.commit(spark, root, base.version, "OPTIMIZE", added, sorted(removed),
                                        layout=layout_to_json(tree), metadata_version=metadata_version, commit_info=info)
        except Exception as e:  # not a SimulatedCrash: a killed process cleans nothing up either
            failure = abandon_rewrite(spark, root, written, published, staging, e)
            if failure is e:
                raise
            raise failure from e
    failpoints.check(spark, "optimize.afterCommit")
    delete(spark, staging)
    return OptimizeResult(committed.version, change.benefit, change.cost, rows_rewritten, len(added), len(old),
                          "layout", reason or change.description, sum(f.size for f in old))


def abandon_rewrite(spark: SparkSession, root: str, written: Sequence[WrittenFile], published: set[str],
                    staging: str, error: Exception) -> SkipstoneError:
    """After a rewrite failed before or at its commit: delete the files it wrote (ours alone, and
    no version lists them) and its staging, give the winner's files their metadata back, and
    return the error to raise (``error`` itself when it already says what went wrong)."""
    for w in written:
        delete(spark, w.path)
    if published:
        _repair_metadata(spark, root, published)
    delete(spark, staging)
    if isinstance(error, SkipstoneError):
        return error
    return SkipstoneError(f"optimize of {root} failed and committed nothing: {failure_reason(error)}")


def _repair_metadata(spark: SparkSession, root: str, covered: set[str]) -> None:
    """After a lost commit, the newest skipping metadata may cover this writer's files
    (``covered``), not the winner's: publish it for the winner's version, collecting only the
    files ours lacked, so the winner's files skip again."""
    current = manifest.latest(spark, root)
    if current is not None and current.files:
        live = [(current.absolute(f), f.size, f.modification_time) for f in current.files]
        try:
            replace_metadata(spark, root, live, [f for f in live if f[0] not in covered])
        except SkipstoneError as e:
            warnings.warn(f"Skipstone: could not refresh the skipping metadata of {root}: {e}", stacklevel=2)
