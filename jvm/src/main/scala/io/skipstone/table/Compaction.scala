package io.skipstone.table

import org.apache.hadoop.fs.Path
import org.json4s.JsonDSL._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.{col, try_element_at, typedLit}

/**
 * The compaction strategy of continuous optimization: each selected block's files are rewritten
 * into as few files as its rows need. A block's rows are already in the block, so nothing is
 * routed and the layout does not change; this commutes with appends and with layout changes to
 * other blocks. [[OptimizeIteration]] runs it, for Python's `t.optimize()`, SQL's `OPTIMIZE` and Scala alike.
 *
 * A [[TableTransaction]] with failpoints `optimize.compaction.afterWrite`, `.afterMetadata`,
 * `.afterCommit`.
 *
 * {{{
 *   Compaction.run(spark, "file:/data/sales", readVersion = 7)   // Some(OptimizeResult(8, ..., "compaction", ...))
 * }}}
 */
object Compaction {
  /**
   * Compacts the fragmented blocks of version `readVersion` that fit one batch, or returns None
   * when no block is fragmented.
   *
   * @param pythonRoles computes the roles of indexes that need Python for the new files; without
   *                    it, a table with such an index is refused before anything is written
   */
  def run(session: SparkSession, root: String, readVersion: Long,
          pythonRoles: Option[PythonRoles] = None): Option[OptimizeResult] = {
    val txn = TableTransaction.open(session, root, readVersion, "optimize.compaction", s"compaction of $root")
    select(root, txn.base).map { selected =>
      val rows = session.read.schema(txn.schema).parquet(selected.files.map(f => s"$root/${f.path}"): _*)
      // a block's rows are in its files: the block of a row is its file's
      val blockOfFile = typedLit(selected.files.map(f => new Path(f.path).getName -> f.block).toMap)
      val info = ("strategy" -> "compaction") ~ ("reason" -> selected.reason) ~
        ("selected" -> selected.files.map(_.path).sorted) ~ ("bytesRead" -> selected.bytes) ~
        ("blocksRewritten" -> selected.blocks)
      val committed = txn.commit(TableWrite("OPTIMIZE", rows,
        Routing.ByColumn(try_element_at(blockOfFile, col("_metadata.file_name")), selected.blocks), selected.files,
        None, info), pythonRoles)
      OptimizeResult(committed.snapshot.version, 0.0, selected.rows.toDouble, selected.rows, committed.added.size,
        selected.files.size, "compaction", selected.reason, selected.bytes)
    }
  }

  /** The blocks of `base` one iteration compacts, or None when none is fragmented. */
  def select(root: String, base: Snapshot): Option[CompactionSelection] =
    CompactionSelection.of(base, base.properties("layout.blockRows").toDouble,
      TableSettings.of(base.properties, root).batchBytes)
}

/** A table operation needs Python (a layout policy, a Python index role); says what to run. */
class NeedsPython(message: String) extends IllegalArgumentException(message)
