"""The handle of a managed table: what `Skipstone.create` and `Skipstone.for_path` return, a thin
Python handle over one JVM ``io.skipstone.table.SkipstoneTable`` (as Delta Lake's ``DeltaTable``
is over its JVM object). It keeps no state of its own: every call asks the JVM, which reads the
table's log afresh."""
from __future__ import annotations

import dataclasses
import json
import logging
import threading
import warnings
from typing import TYPE_CHECKING, Any, Callable, Mapping

from skipstone.dataset import Skipstone
from skipstone.errors import SkipstoneError
from skipstone.indexes import IndexType
from skipstone.jvm_callbacks import start_callbacks
from skipstone.layout.cost_model import CostModel
from skipstone.layout.layout import Layout
from skipstone.layout.policies import LayoutPolicy
from skipstone.session import java_call
from skipstone.table import calibration, manifest, rewrite_report
from skipstone.table.advice import index_advice
from skipstone.table.append import AppendResult
from skipstone.table.continuous import run_continuously
from skipstone.table.driver import PolicyCallback, PythonDriver
from skipstone.table.indexing import FileSetIndex
from skipstone.table.optimize import OptimizeResult, learned
from skipstone.table.transaction import operations, run

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


class ManagedTable:
    """A self-organizing table: data laid out by a partitioning tree, a versioned manifest, a
    workload log, and optimizations that rewrite only what pays for itself.

    The index operations of a Skipstone dataset work too (``describe()``, ``build()``,
    ``refresh()``), over the files of the newest version. A handle keeps nothing of its own:
    every call reads the table's log, so handles, other processes and SQL may all write it.

    >>> from skipstone import Skipstone
    >>> from skipstone.layout import Amoeba, AmoebaAdaptive, RowsRead
    >>> df = spark.range(20_000).selectExpr("id * 7919 % 20000 AS a", "id % 97 AS b", "id AS v")
    >>> t = Skipstone.create(spark, f"{tmp}/events", df, layout=Amoeba(block_rows=2_000))
    >>> for _ in range(10):
    ...     _ = spark.read.parquet(t.root).where("a < 1000").count()
    >>> t.optimize(AmoebaAdaptive(window=100, write_multiplier=4, cost_model=RowsRead())).strategy
    'layout'
    >>> [(r.version, r.operation, r.policy) for r in t.history().collect()]
    [(1, 'CREATE', None), (2, 'OPTIMIZE', 'AmoebaAdaptive')]
    >>> Skipstone.for_path(spark, f"{tmp}/events").version
    2
    """

    def __init__(self, spark: SparkSession, root: str) -> None:
        start_callbacks(spark)  # the JVM asks Python for index roles and the default layout policy
        self._spark = spark
        self._jtable = java_call(operations(spark).SkipstoneTable.forPath, spark._jsparkSession, root,
                                 PythonDriver(spark))

    @property
    def root(self) -> str:
        """The table's root directory, qualified (``file:/data/events``).

        >>> t.root.startswith("file:/")
        True
        """
        return str(self._jtable.root())

    def __repr__(self) -> str:
        return f"ManagedTable({self.root})"

    # -- reading the table's state --------------------------------------------------------

    def current(self) -> manifest.TableVersion:
        """The newest committed version (its files, tree, properties).

        >>> v = t.current()
        >>> v.version == t.version and sum(f.rows for f in v.files) == t.read().count()
        True
        """
        snapshot = java_call(self._jtable.snapshot)
        return manifest.TableVersion.from_json(self.root, operations(self._spark).SnapshotJson.write(snapshot))

    @property
    def version(self) -> int:
        """The newest committed version number (versions count from 1, one per commit).

        >>> t.version == t.history().count()
        True
        """
        return int(java_call(self._jtable.version))

    def tree(self) -> Layout:
        """The layout of the newest version (a ``PartitionTree``, or a ``CurveLayout`` for Z-order
        and Hilbert tables), with each block's actual row count.

        >>> t.tree().block_count
        4
        """
        return self.current().tree

    def files(self) -> DataFrame:
        """One row per live file of the newest version: path (relative), size, block, rows.

        >>> t.files().agg({"rows": "sum"}).first()[0]
        1500
        """
        return self._frame(self._jtable.files)

    def workload(self) -> DataFrame:
        """The queries run on this table, from every session and application that logged them:
        time, version read, predicate (JSON), files and bytes read and total, duration, application,
        and the share of the table's bytes in the columns the query read (``read_share``).

        >>> spark.read.parquet(t.root).where("a < 10").count()
        15
        >>> t.workload().where("predicate IS NOT NULL").select("predicate").collect()[-1].predicate
        '{"column":"a","op":"<","value":10}'
        """
        return self._frame(self._jtable.workload)

    def history(self) -> DataFrame:
        """One row per commit: version, timestamp, operation, benefit, cost, rows rewritten,
        files added and removed, live files and rows, the policy and the full commit info.

        >>> [(r.version, r.operation) for r in t.history().collect()]
        [(1, 'CREATE'), (2, 'APPEND'), (3, 'INDEX')]
        """
        return self._frame(self._jtable.history)

    def detail(self) -> DataFrame:
        """One row about the newest version, as SQL's ``DESCRIBE DETAIL`` and Delta Lake's: format,
        location, version, creation and last commit time, files, bytes and rows, the layout and
        its columns, the properties and the skipping-metadata version.

        >>> t.detail().select("numRows", "layout", "layoutColumns").first()
        Row(numRows=1500, layout='KdTree', layoutColumns=['a'])
        """
        return self._frame(self._jtable.detail)

    def read(self, version: int | None = None, timestamp: str | None = None) -> DataFrame:
        """The table's rows as a DataFrame: the newest version, or with ``version`` exactly that
        version's files, or with ``timestamp`` the newest version committed at or before it (a
        string such as ``'2026-11-26 10:00:00'``, in the session's time zone). The same as
        ``spark.read.option("versionAsOf", 3).parquet(root)`` (or ``"timestampAsOf"``), which
        any session with the extension reads the same way.

        >>> t.read(version=1).where("a < 10").count()
        10
        >>> created = t.history().selectExpr("CAST(timestamp AS STRING) AS at").first().at   # version 1's commit
        >>> t.read(timestamp=created).count()
        1000

        A version a vacuum removed, or that never existed, fails when the DataFrame is read,
        naming the versions still available.
        """
        if version is not None and timestamp is not None:
            raise SkipstoneError(f"{self.root}: read(version=..., timestamp=...) takes one of them, not both")
        if version is not None:
            if isinstance(version, bool) or not isinstance(version, int):
                raise SkipstoneError(f"{self.root}: read(version=...) takes a version number, got {version!r}")
            return self._frame(self._jtable.read, version)
        if timestamp is not None:
            return self._frame(self._jtable.read, str(timestamp))
        return self._frame(self._jtable.read)

    def rewrite_report(self, cost_model: CostModel | None = None) -> DataFrame:
        """One row per layout rewrite: what its policy predicted (``cost``, ``predicted_benefit``,
        ``break_even_queries``, the ``unit`` rewritten) next to what it realized on the queries
        logged since (``queries_since``): ``realized_benefit`` is what the layout it replaced
        would have cost them minus what its layout costs them, read from the two versions'
        manifests and priced by ``cost_model`` (default: the model the policy priced the rewrite
        with, as its commit logged it; else ``SparkCost`` at the table's bytes per row and
        calibrated prices); ``broken_even`` once it reaches ``cost``. Rewrites whose replaced
        version a vacuum removed are left out.

        >>> from skipstone.layout import BoundedRewrite, KdTree, RowsRead
        >>> df = spark.range(800).selectExpr("id DIV 100 AS x", "id % 100 AS y")
        >>> u = Skipstone.create(spark, f"{tmp}/report", df, layout=KdTree(block_rows=400, columns=["y"]))
        >>> for _ in range(2):                       # both blocks read, for 200 of their 800 rows
        ...     _ = u.read().where("x <= 1").count()
        >>> policy = BoundedRewrite(block_rows=200, write_multiplier=0.5, cost_model=RowsRead())
        >>> u.optimize(policy).strategy              # regret 2 x 600 rows >= cost 0.5 x 800
        'layout'
        >>> for _ in range(3):                       # one block of 200 rows read
        ...     _ = u.read().where("x <= 1").count()
        >>> u.rewrite_report().select("cost", "queries_since", "realized_benefit", "broken_even").first()
        Row(cost=400.0, queries_since=3, realized_benefit=1800.0, broken_even=True)
        """
        found = rewrite_report.outcomes(self._spark, self.root, cost_model)
        return rewrite_report.frame(self._spark, found)

    # -- changing it -------------------------------------------------------------------------

    def optimize(self, policy: LayoutPolicy | None = None) -> OptimizeResult | None:
        """Run one iteration of continuous optimization: the table's strategies
        (``optimize.strategies``, by default ``unindexed,compaction,layout``) are asked in order
        for a bounded batch of work (at most ``optimize.batchBytes`` read), and the first that
        selects something runs and commits:

        - ``unindexed``: files other writers dropped into the root, oldest first (modified at or
          after ``optimize.unindexedFromMillis``), routed through the layout into indexed files;
        - ``compaction``: blocks spread over more files than their rows need (appends add one
          file per block), rewritten into as few files as their rows need;
        - ``layout``: ``policy`` (default: the one the table's ``optimize.layoutPolicy`` names,
          ``AmoebaAdaptive()`` unless set) proposes a layout change from the
          logged workload; exactly the blocks it replaces are rewritten.

        Returns what was committed (strategy, reason, rows and bytes read), or None when no
        strategy found anything to do. Queries that started earlier keep reading their version.
        The loop is the JVM's (``io.skipstone.table.OptimizeIteration``, which SQL's ``OPTIMIZE``
        runs too); the policy is asked from there, and what it raises is raised here.

        >>> from skipstone.layout import AmoebaAdaptive
        >>> t.optimize()                     # the blocks the append split into two files each
        OptimizeResult(version=..., benefit=0.0, cost=1500.0, rows_rewritten=1500, files_added=4, files_removed=8, strategy='compaction', ...)
        >>> print(t.optimize(AmoebaAdaptive(window=100, write_multiplier=4)))   # no logged query pays a rewrite
        None
        """
        if policy is not None and not isinstance(policy, LayoutPolicy):
            raise SkipstoneError(f"{policy!r} is not a layout policy (it needs a name and propose(tree, workload, sample))")
        callback = PolicyCallback(self._spark, policy)  # None: the default policy
        try:
            found = run(self._jtable.optimize, operations(self._spark).PythonPolicy.asLayoutPolicy(callback))
        except BaseException:
            if callback.raised is not None:
                raise callback.raised from None  # the policy's own error, not the JVM's report of it
            raise
        if found.isEmpty():
            log.info("optimize of %s: no strategy found anything to do", self.root)
            return None
        result = OptimizeResult.from_json(json.loads(found.get().toJson()))
        log.info("optimize of %s committed version %d by %s (%s): %d rows rewritten, %d files added, %d removed, "
                 "%d bytes read", self.root, result.version, result.strategy, result.reason, result.rows_rewritten,
                 result.files_added, result.files_removed, result.bytes_read)
        return result

    def optimize_continuously(self, policy: LayoutPolicy | None = None, max_seconds: float | None = None,
                              max_iterations: int | None = None,
                              stop: threading.Event | None = None) -> list[OptimizeResult]:
        """Run ``optimize(policy)`` iterations until none finds anything to do, ``max_seconds``
        have passed (checked between iterations), ``max_iterations`` ran, or ``stop`` is set
        (another thread may set it). Each iteration commits on its own, so interrupting the loop
        anywhere, even killing the process, leaves the table as its last commit left it.

        >>> done = t.optimize_continuously(max_seconds=600)
        >>> [(r.strategy, r.reason) for r in done]               # optimize() left nothing to do
        []
        """
        return run_continuously(lambda: self.optimize(policy), max_seconds, max_iterations, stop)

    def append(self, df: DataFrame) -> AppendResult:
        """Add ``df``'s rows: each is routed through the current layout into new files of its
        block (blocks gain files; no file is rewritten), the new files are indexed, and a version
        is committed. ``df`` must have the table's columns and types (in any order).

        An optimize committed meanwhile makes the append route its rows again through the new
        layout; an optimize running meanwhile loses its commit to the append and writes nothing.

        With ``optimize.auto``, one optimize iteration runs after the commit. Its failure does
        not undo or fail the append, which is committed: it is warned about and reported in
        ``optimize_error`` (retrying the append would add its rows twice).

        >>> t.append(spark.range(0, 1000, 2).selectExpr("id AS a", "id % 97 AS b", "id AS v"))
        AppendResult(version=..., rows=500, files_added=4, optimize=None, optimize_error=None)
        """
        result = AppendResult.from_json(json.loads(run(self._jtable.append, df._jdf).toJson()))
        log.info("append to %s committed version %d: %d rows in %d files", self.root, result.version, result.rows,
                 result.files_added)
        if result.optimize_error is not None:
            log.warning("the automatic optimize after the append to %s (version %d) failed: %s", self.root,
                        result.version, result.optimize_error)
            warnings.warn(f"Skipstone: the append to {self.root} committed version {result.version} "
                          f"({result.rows} rows); the automatic optimize after it failed: {result.optimize_error}",
                          stacklevel=2)
        return result

    def properties(self) -> dict[str, str]:
        """The newest version's table properties (format, schema, layout, settings), with the
        maintenance settings' defaults for those never set (see docs/maintenance.md).

        >>> t.properties()["optimize.strategies"]
        'unindexed,compaction,layout'
        """
        converters = self._spark._jvm.scala.jdk.javaapi.CollectionConverters  # type: ignore[union-attr]
        return {str(k): str(v) for k, v in converters.asJava(java_call(self._jtable.properties)).items()}

    def set_properties(self, properties: Mapping[str, str]) -> None:
        """Commit new values for table properties (other keys keep theirs), as Delta's
        ``ALTER TABLE ... SET TBLPROPERTIES``. ``workloadLog.enabled = false`` stops logging the
        queries on this table, from every session.

        The JVM checks every key and value against the table's settings (docs/maintenance.md)
        before committing: an unknown ``optimize.*`` key, a typo of a setting, a key Skipstone
        writes itself (``format``, ``schema``, ``layout.*``) or a value out of range raises a
        SkipstoneError naming the key and what is allowed, and commits nothing. Keys of your own
        (``owner``) are kept as they are.

        >>> t.set_properties({"owner": "sales", "optimize.batchBytes": str(256 << 20)})
        >>> t.properties()["owner"]
        'sales'
        >>> t.set_properties({"optimise.auto": "true"})
        Traceback (most recent call last):
        ...
        skipstone.errors.SkipstoneError: table ...: 'optimise.auto' is no table setting; did you mean 'optimize.auto'? ...
        """
        java_call(self._jtable.setProperties, {str(k): str(v) for k, v in properties.items()})

    def calibrate(self, sample_bytes: float = 256e6, repeats: int = 2, source: str = "timed") -> calibration.Calibration:
        """Measure what reading and rewriting cost on this machine and store the prices with the
        table (``cost.fileBytes``, ``cost.jobBytes``, ``cost.writeMultiplier``, ``cost.queryBytes``,
        ``cost.calibratedAt``):
        from then on ``optimize`` prices with them wherever a policy was given no prices of its own.
        Copies of about ``sample_bytes`` of the table's rows are written into a scratch directory
        of the table's container in few and many files and scanned (``repeats`` times), and the
        timings fitted by least squares (the table package's calibration module); the table's data is not
        touched. Takes seconds to minutes: calibrate once per cluster, again when it changes.

        ``source="log"`` learns the prices instead from what the table's own logged queries and
        commits took (durations, files and bytes read, rows written; the learned_prices module):
        nothing is written or timed, and the prices are those of the workload's queries at the
        table's own file size and scale. It needs 20 logged queries that read different numbers
        of files and one commit that wrote rows, and says so when they are missing.

        >>> c = t.calibrate()                                    # doctest: +SKIP
        >>> c.prices                                             # doctest: +SKIP
        TablePrices(file_bytes=1384210.734..., job_bytes=14825301.162..., write_multiplier=61.296..., query_bytes=...)
        >>> t.properties()["cost.writeMultiplier"]               # doctest: +SKIP
        '61.296'

        (Skipped when the docs run: timings differ on every machine.)
        """
        if source == "log":
            measured = dataclasses.replace(learned(self._spark, self.current()), calibrated_at=calibration.now_utc())
        elif source == "timed":
            measured = calibration.calibrate(self._spark, self.current(), sample_bytes, repeats)
        else:
            raise ValueError(f"calibrate: source must be 'timed' (time copies) or 'log' (learn from the table's "
                             f"queries and commits), got {source!r}")
        self.set_properties(measured.properties())
        return measured

    def vacuum(self, retention_hours: float | None = None, dry_run: bool = False, force: bool = False) -> DataFrame:
        """Delete the files that no version within the retention still needs, and nothing else:
        data files that versions replaced, files of writers that died before committing,
        skipping-metadata versions and samples no retained version uses, and old staging
        directories. A version is retained while it is the newest or was the newest less than
        ``retention_hours`` ago (default: the table's ``vacuum.retentionHours``, 168). The
        workload log's files are merged into one once a hundred are older than a minute, without
        its records older than ``workloadLog.retentionDays``.

        Returns one row per path deleted (or, with ``dry_run``, that would be): path, kind
        (data, absorbed, orphan, metadata, sample, staging, lease, workload), size. A retention under the table's is
        refused unless ``force``: queries or readers still on an older version would lose files.
        Files other writers dropped into the table's directory are never deleted, and nothing
        outside the table's root is ever touched. See docs/maintenance.md.

        >>> t.vacuum(dry_run=True).count()                       # every version is within 168 hours
        0
        >>> sorted({r.kind for r in t.vacuum(retention_hours=0, force=True).collect()})
        ['data', 'metadata']
        """
        hours = java_call(self._jtable.retentionHours) if retention_hours is None else retention_hours
        gone = self._frame(self._jtable.vacuum, float(hours), bool(dry_run), bool(force))
        if log.isEnabledFor(logging.INFO):  # the rows are the JVM's local list: no job reads data
            kinds = {r["kind"]: r["n"] for r in gone.groupBy("kind").count().withColumnRenamed("count", "n").collect()}
            log.info("vacuum of %s (retention %s hours%s): %s %d files%s", self.root, hours, ", forced" if force else "",
                     "would delete" if dry_run else "deleted", sum(kinds.values()),
                     "".join(f", {n} {k}" for k, n in sorted(kinds.items())))
        return gone

    # -- its skipping indexes, as a dataset's ---------------------------------------------------

    def build(self, *indexes: IndexType, use_footers: bool = True, footer_key: str | None = None) -> ManagedTable:
        """Index the newest version's files for ``indexes`` (replacing the table's indexes) and
        commit a version that records the new metadata (its files are unchanged). Encrypted
        indexes and ``footer_key`` as for a dataset (docs/encryption.md); the table's commits
        keep its metadata under the same keys.

        >>> [r["index"] for r in t.build(MinMax("a"), ValueList("b")).describe().collect()]
        ['MinMax(a)', 'ValueList(b, max_size=1000)']
        """
        base = self.current()
        dataset = self._files_of(base)
        dataset.build(*indexes, use_footers=use_footers, footer_key=footer_key)
        self._record_metadata(base, dataset, [ix.describe() for ix in indexes])
        return self

    def refresh(self) -> ManagedTable:
        """Index the newest version's files that the metadata lacks, and commit a version that
        records the new metadata.

        >>> t.refresh().current().operation
        'INDEX'
        """
        base = self.current()
        dataset = self._files_of(base)
        dataset.refresh()
        self._record_metadata(base, dataset, None)
        return self

    def describe(self) -> DataFrame:
        """One row per index: its description, kind, columns, the metadata version and size.

        >>> t.describe().select("index", "kind", "columns").first()
        Row(index='MinMax(a)', kind='minmax', columns=['a'])
        """
        return Skipstone(self._spark, self.root, "parquet").describe()

    def advise(self) -> DataFrame:
        """Which columns the logged queries filter on, and which skipping index would answer them:
        per column, how many queries bound it (by a range, by equality), the mean share of files
        they read, the indexes covering it, and a suggestion with its reason (``MinMax`` for
        ranges no index answers; ``ValueList``, or ``BloomFilter`` above 1,000 distinct values,
        for equality no index answers or that MinMax cannot skip on an unclustered column).

        >>> for day in (5, 6, 7):
        ...     _ = spark.read.parquet(t.root).where(f"b = {day}").count()
        >>> t.advise().select("column", "queries", "indexes", "suggestion").collect()
        [Row(column='b', queries=3, indexes=['MinMax(b)'], suggestion='ValueList(b)')]
        >>> print(t.advise().first().reason)      # distinct values are counted approximately
        MinMax answers its equalities, but the queries read 100% of the files: the column is not clustered; ... distinct values: few enough to list per file
        """
        return index_advice(self._spark, self.workload(), self.describe(), self.read())

    def drop(self) -> bool:
        """Refused: a managed table's metadata directory is also its log. Delete the table's
        directory to drop the table.

        >>> t.drop()
        Traceback (most recent call last):
        ...
        skipstone.errors.SkipstoneError: file:... is a managed table: dropping its metadata would drop its log too; ...
        """
        raise SkipstoneError(f"{self.root} is a managed table: dropping its metadata would drop its log too; "
                             "delete the table's directory instead")

    # -- internals ---------------------------------------------------------------------------

    def _frame(self, method: Callable[..., Any], *args: Any) -> DataFrame:
        from pyspark.sql import DataFrame

        return DataFrame(java_call(method, *args), self._spark)

    def _files_of(self, version: manifest.TableVersion) -> FileSetIndex:
        """The version's files as a dataset: build() and refresh() index exactly these, never the
        directory's leftovers."""
        return FileSetIndex(self._spark, self.root,
                            [(version.absolute(f), f.size, f.modification_time) for f in version.files])

    def _record_metadata(self, base: manifest.TableVersion, dataset: FileSetIndex, indexes: list[str] | None) -> None:
        # Queries use the metadata version a table version records, so a build or refresh
        # commits a version that records the new one.
        published = dataset._current()
        assert published is not None, "metadata was just published"
        info: dict[str, Any] = {"metadataVersion": published[0]}
        if indexes is not None:
            info["indexes"] = indexes
        manifest.commit(self._spark, self.root, base.version, "INDEX", [], metadata_version=published[0],
                        commit_info=info)
