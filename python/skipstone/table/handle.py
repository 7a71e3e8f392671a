"""The handle of a managed table: what `Skipstone.create` and `Skipstone.for_path` return."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from skipstone.dataset import Skipstone
from skipstone.errors import SkipstoneError
from skipstone.layout.policies import LayoutPolicy
from skipstone.layout.layout import Layout
from skipstone.session import java_call
from skipstone.table import manifest
from skipstone.table.optimize import OptimizeResult, apply, plan

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


class ManagedTable(Skipstone):
    """A self-organizing table: data laid out by a partitioning tree, a versioned manifest, a
    workload log, and optimizations that rewrite only what pays for itself.

    Everything a plain Skipstone dataset offers works too (``describe()``, ``build()``,
    ``refresh()``), over the files of the newest version.

    >>> from skipstone import Skipstone, MinMax
    >>> from skipstone.layout import Amoeba, AmoebaAdaptive
    >>> t = Skipstone.create(spark, "/data/events", df, layout=Amoeba(block_bytes=64 << 20))  # doctest: +SKIP
    >>> spark.read.parquet("/data/events").where("ts >= '2024-01-01'").count()             # doctest: +SKIP
    >>> t.optimize(AmoebaAdaptive(window=100, write_multiplier=4))                          # doctest: +SKIP
    >>> t.history().show()                                                                  # doctest: +SKIP
    """

    def __init__(self, spark: SparkSession, root: str) -> None:
        super().__init__(spark, root, "parquet")

    def __repr__(self) -> str:
        return f"ManagedTable({self.root})"

    # -- reading the table's state --------------------------------------------------------

    def current(self) -> manifest.TableVersion:
        """The newest committed version (its files, tree, properties)."""
        found = manifest.latest(self._spark, self.root)
        if found is None:
            raise SkipstoneError(f"{self.root} is not a Skipstone table (no log under {self.root}/_skipstone/log)")
        return found

    @property
    def version(self) -> int:
        """The newest committed version number."""
        return self.current().version

    def tree(self) -> Layout:
        """The layout of the newest version (a ``PartitionTree``, or a ``CurveLayout`` for Z-order
        and Hilbert tables), with each block's actual row count."""
        return self.current().tree

    def files(self) -> DataFrame:
        """One row per live file of the newest version: path (relative), size, block, rows.

        >>> t.files().groupBy("block").sum("rows").show()   # doctest: +SKIP
        """
        v = self.current()
        rows = [(f.path, f.size, f.block, f.rows) for f in v.files]
        return self._spark.createDataFrame(rows, "path string, size long, block long, rows long")

    def workload(self) -> DataFrame:
        """The queries run on this table, from every session and application that logged them:
        time, version read, predicate (JSON), files and bytes read and total, duration.

        >>> t.workload().select("predicate", "files_read", "files_total").show(truncate=False)  # doctest: +SKIP
        """
        return self._frame("workload")

    def history(self) -> DataFrame:
        """One row per commit: version, timestamp, operation, benefit, cost, rows rewritten,
        files added and removed, live files and rows, the policy and the full commit info.

        >>> t.history().select("version", "operation", "rows_rewritten").show()   # doctest: +SKIP
        """
        return self._frame("history")

    # -- changing it -------------------------------------------------------------------------

    def optimize(self, policy: LayoutPolicy) -> OptimizeResult | None:
        """Ask ``policy`` for a layout change from the logged workload; if it proposes one,
        rewrite exactly the blocks it replaces (reading only their files) and commit. Returns
        what was committed, or None when the policy found nothing that pays for itself.

        Queries that started before the commit keep reading the version they started with.

        >>> from skipstone.layout import AmoebaAdaptive
        >>> t.optimize(AmoebaAdaptive(window=100, write_multiplier=4))   # doctest: +SKIP
        OptimizeResult(version=2, benefit=..., cost=..., rows_rewritten=..., files_added=..., files_removed=...)
        """
        planned = self._plan(policy)
        return None if planned is None else apply(self._spark, planned)

    def _plan(self, policy: LayoutPolicy) -> Any:
        if not isinstance(policy, LayoutPolicy):
            raise SkipstoneError(f"{policy!r} is not a layout policy (it needs a name and propose(tree, workload, sample))")
        base = self.current()  # planned against this version; the workload read next may be newer, which is fine
        return plan(self._spark, base, self.workload(), policy)

    def properties(self) -> dict[str, str]:
        """The newest version's table properties (format, schema, layout, settings).

        >>> t.properties()["workloadLog.enabled"]   # doctest: +SKIP
        'false'
        """
        return dict(self.current().properties)

    def set_properties(self, properties: Mapping[str, str]) -> None:
        """Commit new values for table properties (other keys keep theirs), as Delta's
        ``ALTER TABLE ... SET TBLPROPERTIES``. ``workloadLog.enabled = false`` stops logging the
        queries on this table, from every session.

        >>> t.set_properties({"workloadLog.enabled": "false"})   # doctest: +SKIP
        """
        values = {str(k): str(v) for k, v in properties.items()}
        manifest.commit(self._spark, self.root, self.current().version, "SET PROPERTIES", [], properties=values,
                        commit_info={"properties": values})

    def drop(self) -> bool:
        raise SkipstoneError(f"{self.root} is a managed table: dropping its metadata would drop its log too; "
                             "delete the table's directory instead")

    # -- internals ---------------------------------------------------------------------------

    def _frame(self, method: str) -> DataFrame:
        from pyspark.sql import DataFrame

        return DataFrame(java_call(getattr(manifest._tables(self._spark), method), self._jsession, self.root), self._spark)

    def _read(self, files: list[str] | None = None) -> DataFrame:
        # build() and refresh() index the newest version's files, never the directory's leftovers
        paths = files if files is not None else [f"{self.root}/{f.path}" for f in self.current().files]
        return self._spark.read.parquet(*paths)

    def _as_built(self, definition: Any) -> Any:
        return self

    def _publish(self, indexes: Any, columns: Any, data: DataFrame, metadata: DataFrame) -> int:
        # Queries use the metadata version a table version records, so a build or refresh
        # commits a version that records the new one (its files are unchanged).
        published = super()._publish(indexes, columns, data, metadata)
        manifest.commit(self._spark, self.root, self.current().version, "INDEX", [], metadata_version=published,
                        commit_info={"metadataVersion": published,
                                     "indexes": [ix.describe() for ix in indexes]})
        return published
