"""The layout strategy's planner: a policy proposes a tree change from the logged workload, with
its benefit and cost (``plan``); the JVM rewrites only the blocks it replaces and commits
atomically, or not at all (``io.skipstone.table.Rewrite``, asked by the one strategy loop,
``io.skipstone.table.OptimizeIteration``)."""
from __future__ import annotations

import dataclasses
import json
import logging
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence, Union

from skipstone.errors import SkipstoneError
from skipstone.layout.cost_model import TablePrices, model_to_json
from skipstone.layout.policies import LayoutChange, LayoutPolicy
from skipstone.layout.queries import Query
from skipstone.layout.serialization import layout_to_json
from skipstone.session import java_call
from skipstone.table import learned_prices, manifest, settings
from skipstone.table.block_births import birth_versions, log_positions
from skipstone.table.calibration import Calibration
from skipstone.table.container import read_sample
from skipstone.table.logged_workload import Record, logged_records, parse_logged, table_workload
from skipstone.table.manifest import finite
from skipstone.table.transaction import operations, python_roles, run

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class OptimizePlan:
    """A change planned against one version, not yet written."""

    base: manifest.TableVersion
    change: LayoutChange
    policy: str
    cost_model: dict[str, Any] | None = None  # how the policy priced it (model_to_json), for the history


@dataclass(frozen=True)
class OptimizeResult:
    """What one optimize iteration committed (it is also a row of ``history()``): the strategy
    that selected the work (``unindexed``, ``compaction`` or ``layout``), why, and what it cost.

    >>> done = t.optimize()          # None when nothing pays for itself  # doctest: +SKIP
    >>> done.strategy, done.files_added, done.files_removed            # doctest: +SKIP
    ('compaction', 6, 12)
    """

    version: int
    benefit: float
    cost: float
    rows_rewritten: int
    files_added: int
    files_removed: int
    strategy: str = "layout"
    reason: str = ""
    bytes_read: int = 0

    @staticmethod
    def from_json(d: dict[str, Any]) -> OptimizeResult:
        """Python's view of the JVM's ``OptimizeResult`` JSON."""
        return OptimizeResult(int(d["version"]), float(d["benefit"]), float(d["cost"]), int(d["rowsRewritten"]),
                              int(d["filesAdded"]), int(d["filesRemoved"]), str(d["strategy"]), str(d["reason"]),
                              int(d["bytesRead"]))


Logged = Union["DataFrame", Sequence[tuple[str, int]], None]


def logged_predicates(spark: SparkSession, root: str) -> list[tuple[str, int]]:
    """(predicate JSON, version read) of every logged query of the table, oldest first (``logged_records``)."""
    return [(r.predicate, r.version) for r in logged_records(spark, root)]


READ_SHARE_QUERIES = 100  # the recent queries whose mean read share prices a query's bytes


def read_share(shares: Sequence[float | None], recent: int = READ_SHARE_QUERIES) -> float | None:
    """The mean share of a row's bytes the last ``recent`` logged queries read (those that know
    it), or None when none does.

    >>> read_share([None, 0.5, 0.1, 0.3], recent=2)
    0.2
    >>> print(read_share([None]))
    None
    """
    known = [s for s in shares[-recent:] if s is not None]
    return sum(known) / len(known) if known else None


def logged_queries(workload: Logged, base: manifest.TableVersion,
                   spark: SparkSession | None = None) -> list[tuple[Query, int]]:
    """The logged predicates as the layout's queries, oldest first, each with the version it
    read; ones it cannot read are skipped. ``workload`` is the table's log as ``t.workload()``
    gives it, (predicate, version) pairs, or None for the table's own log (``spark`` needed)."""
    schema = base.tree.schema
    if workload is None:
        if spark is None:
            raise ValueError("logged_queries: without a workload, give the session to read the table's log")
        pairs = logged_predicates(spark, base.root)
    elif isinstance(workload, (list, tuple)):
        pairs = list(workload)
    else:
        pairs = [(r.predicate, int(r.version)) for r in
                 workload.where("predicate IS NOT NULL").orderBy("time").select("predicate", "version").collect()]
    return parse_logged(pairs, schema, base.root)


def plan(spark: SparkSession, base: manifest.TableVersion, workload: Logged, policy: LayoutPolicy) -> OptimizePlan | None:
    """The change ``policy`` proposes for ``base`` from the logged workload (None: the table's
    own log, of which only the records logged since the last call are read: ``logged_workload``), or None. The policy
    is first given what the table knows, by the methods it has: its block size (``for_table``),
    its file size limit in rows (``with_file_rows``: a larger block is several files),
    bytes per row measured from its files (``with_bytes_per_row``), the share of those bytes its
    logged queries read (``with_read_share``, from its own log only), its calibrated prices
    (``with_prices``, from the ``cost.*`` settings ``t.calibrate()`` stores; a policy keeps
    prices it was given) and from which logged query on each block existed (``with_block_births``)."""
    tree = base.tree
    sample = read_sample(spark, base.root, base.properties["layout.sample"], tree.schema)
    if workload is None:  # the table's own log: what was read before and the records logged since
        table_log = table_workload(spark, base.root, tree.schema)
        records: Sequence[Record] | None = table_log.records
        queries: Sequence[Query] = table_log.queries
        versions: Sequence[int] = table_log.versions
    else:
        records = None
        logged = logged_queries(workload, base, spark)
        queries, versions = [q for q, _ in logged], [v for _, v in logged]
    for_table = getattr(policy, "for_table", None)
    if callable(for_table):  # policies that need the table's target block size (PawRebuild)
        policy = for_table(float(base.properties["layout.blockRows"]))
    with_file_rows = getattr(policy, "with_file_rows", None)
    if callable(with_file_rows):  # a block over the table's file size limit is several files, each opened
        policy = with_file_rows(max_rows_per_file(spark, float(base.properties["layout.blockRows"])))
    with_bytes = getattr(policy, "with_bytes_per_row", None)
    if callable(with_bytes):  # policies that price bytes (SparkCost) take the table's measured row width
        policy = with_bytes(base.bytes_per_row)
    share = read_share([r.read_share for r in records[-READ_SHARE_QUERIES:]]) if records else None
    with_share = getattr(policy, "with_read_share", None)
    if callable(with_share) and share is not None:  # queries read only the columns they project
        policy = with_share(share)
    with_prices = getattr(policy, "with_prices", None)
    if callable(with_prices):
        policy = with_prices(table_prices(spark, base, records))
    with_births = getattr(policy, "with_block_births", None)
    if callable(with_births):  # regret counts the queries since each block was written (BoundedRewrite)
        births = birth_versions(commit_log(spark, base.root, base.version))
        policy = with_births(log_positions(births, tree.block_ids.tolist(), versions))
    change = policy.propose(tree, queries, sample)
    if change is None or not change.rewritten_blocks:
        log.info("%s proposes no layout change to version %d of %s (%d logged queries)", policy.name, base.version,
                 base.root, len(queries))
        return None
    gone = set(tree.block_ids.tolist()) - set(change.tree.block_ids.tolist())
    if gone != set(change.rewritten_blocks):
        raise SkipstoneError(f"policy {policy.name} lists blocks {sorted(change.rewritten_blocks)} as rewritten, "
                             f"but its tree drops blocks {sorted(gone)}")
    log.info("%s proposes rewriting %d of %d blocks of %s version %d (benefit %.4g, cost %.4g): %s", policy.name,
             len(change.rewritten_blocks), len(tree.block_ids), base.root, base.version, change.benefit, change.cost,
             change.description)
    model = getattr(policy, "cost_model", None)
    return OptimizePlan(base, change, policy.name, None if model is None else model_to_json(model))


def max_rows_per_file(spark: SparkSession, block_rows: float) -> float:
    """The most rows a file of a table whose target block holds ``block_rows`` rows: the JVM
    writes a larger block as several files (``TableTransaction.MaxBlockFactor``)."""
    factor = float(spark._jvm.io.skipstone.table.TableTransaction.MaxBlockFactor())  # type: ignore[union-attr]
    return math.ceil(factor * block_rows)


def table_prices(spark: SparkSession, base: manifest.TableVersion, records: Sequence[Record] | None = None) -> TablePrices:
    """The prices the table's policies plan with: its ``cost.*`` settings; with ``cost.learn``,
    what its logged queries (``records``, else read) and commits imply (``learned``), the
    settings' while there is too little to learn from."""
    stored = settings.read(spark, base.properties, base.root)
    if not stored.learn_prices:
        return stored.prices
    try:
        return learned(spark, base, records, stored.prices).prices
    except SkipstoneError as e:
        log.info("%s prices with its cost.* settings: %s", base.root, e)
        return stored.prices


def learned(spark: SparkSession, base: manifest.TableVersion, records: Sequence[Record] | None = None,
            prior: TablePrices | None = None) -> Calibration:
    """The prices ``base``'s table's logged queries and commits imply (``learned_prices.learn``),
    split between bytes and files as its ``cost.*`` settings split them when they cannot tell."""
    if records is None:
        records = table_workload(spark, base.root, base.tree.schema).records
    if prior is None:  # the table's cost.* settings
        prior = settings.read(spark, base.properties, base.root).prices
    return learned_prices.learn(records, commit_log(spark, base.root, base.version), base, prior)


def commit_log(spark: SparkSession, root: str, up_to: int | None = None) -> list[tuple[int, str, dict[str, Any]]]:
    """(version, operation, commit info) of each retained commit (up to version ``up_to``), oldest first."""
    text = java_call(operations(spark).Tables.commitInfosJson, spark._jsparkSession, root)
    return sorted((int(v), str(op), info or {}) for v, op, info in json.loads(text)
                  if up_to is None or int(v) <= up_to)


def change_document(p: OptimizePlan, reason: str | None = None) -> dict[str, Any]:
    """The planned change as the JVM reads it (``io.skipstone.table.ProposedChange``): the new
    layout, the blocks it rewrites, and what the policy says of it for the history, with the
    fields it set for that (``LayoutChange.history_fields``) and the cost model it priced with;
    without a ``reason``, the JVM's: the policy's name and the change's description."""
    change = p.change
    info: dict[str, Any] = {"policy": p.policy, "benefit": change.benefit, "cost": change.cost,
                            "description": change.description}
    history_fields = getattr(change, "history_fields", None)  # a policy's own LayoutChange-like value may lack it
    if callable(history_fields):
        info.update(history_fields())  # what a bounded rewrite reports: unit, budget, regret, break-even...
    if p.cost_model is not None:
        info["cost_model"] = p.cost_model
    if reason is not None:
        info["reason"] = reason
    # Strict JSON: the log's reader (Jackson) refuses NaN and infinities, which a policy's benefit may be.
    document = {"layout": layout_to_json(change.tree), "rewritten": [int(b) for b in change.rewritten_blocks],
                "info": finite(info)}
    if getattr(change, "spec", None) is not None:  # a whole-table rebuild by a spec: the table's layout.spec
        document["spec"] = dict(change.spec)  # type: ignore[union-attr]
    return document


def apply(spark: SparkSession, p: OptimizePlan, reason: str = "") -> OptimizeResult:
    """Rewrite the plan's blocks and commit, in the JVM (``io.skipstone.table.Rewrite``); if a
    concurrent commit conflicts, what was written is removed and a SkipstoneError says so (the
    table is as the winner left it)."""
    root = p.base.root
    document = change_document(p, reason or p.change.description)
    text = run(operations(spark).Rewrite.runFromPython, spark._jsparkSession, root, int(p.base.version),
               json.dumps(document, allow_nan=False), python_roles(spark, root))
    return dataclasses.replace(OptimizeResult.from_json(json.loads(text)), benefit=p.change.benefit,
                               cost=p.change.cost)
