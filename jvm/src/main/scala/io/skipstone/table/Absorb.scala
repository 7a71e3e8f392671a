package io.skipstone.table

import org.apache.spark.sql.SparkSession
import org.json4s.JsonDSL._

/**
 * The unindexed strategy of continuous optimization (qbeast's revision 0): the rows of files other
 * writers dropped into the root ([[UnindexedSelection]]) are routed through the layout into the
 * table's own indexed files, and the OPTIMIZE version records the files as absorbed, by content
 * identity, so that no reader reads their rows twice. A [[TableTransaction]] with failpoints
 * `optimize.unindexed.afterWrite`, `.afterMetadata`, `.afterCommit`; like an append, it routes
 * its rows again when a concurrent commit changed the layout.
 *
 * {{{
 *   Absorb.run(spark, "file:/data/sales", readVersion = 7)   // Some(OptimizeResult(8, ..., "unindexed", ...))
 * }}}
 */
object Absorb {
  /** Absorbs one batch of the files other writers dropped into `root`; None when there is none. */
  def run(session: SparkSession, root: String, readVersion: Long, roles: Option[PythonRoles] = None): Option[OptimizeResult] = {
    val conf = session.sessionState.newHadoopConf()
    def selection(base: Snapshot) = {
      val settings = TableSettings.of(base.properties, root)
      UnindexedSelection.of(conf, root, base, settings.unindexedFromMillis, settings.batchBytes)
    }
    val first = TableTransaction.open(session, root, readVersion, "optimize.unindexed", s"optimize of $root")
    if (selection(first.base).isEmpty) None
    else TableTransaction.retryingOnLayoutChange(first, Append.MaxAttempts) { txn =>
      // selected again on the version this attempt reads: the winner of a race may have absorbed them
      selection(txn.base).map(absorb(session, root, txn, _, roles))
    }
  }

  private def absorb(session: SparkSession, root: String, txn: TableTransaction, selected: UnindexedSelection,
                     roles: Option[PythonRoles]): OptimizeResult = {
    val names = selected.files.map(_.getPath.getName)
    val info = ("strategy" -> "unindexed") ~ ("reason" -> selected.reason) ~ ("selected" -> names) ~
      ("bytesRead" -> selected.bytes)
    // each file's identity as selected, before its rows are read: a file replaced meanwhile is not absorbed
    val absorbed = selected.files.map(f => AbsorbedFile.of(f.getPath.getName, f)).toSet
    val rows = session.read.schema(txn.schema).parquet(selected.paths: _*)
    val layout = txn.layout
    val committed = try txn.commit(TableWrite("OPTIMIZE", rows, Routing.throughLayout(layout), Nil, Some(layout), info,
      absorbed = absorbed), roles) catch {
      case e @ (_: TableWriteFailed | _: RowCountMismatch) => throw new TableWriteFailed(
        s"optimize of $root could not absorb the files other writers dropped into its root (${names.mkString(", ")}): " +
          s"${e.getMessage}. Move the files out of the root (or fix them), or leave them unindexed with the property " +
          "optimize.strategies = 'compaction,layout'", e)
    }
    OptimizeResult(committed.snapshot.version, 0.0, committed.rows.toDouble, committed.rows, committed.added.size, 0L,
      "unindexed", selected.reason, selected.bytes)
  }
}
