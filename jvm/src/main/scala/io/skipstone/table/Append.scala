package io.skipstone.table

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.json4s.JObject
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

/**
 * Appends rows to a managed table: each is routed through the current layout into a new file of
 * its block (blocks gain files; no file is rewritten), the new files are indexed, and an APPEND
 * version is committed. A [[TableTransaction]] with failpoints `append.afterWrite`,
 * `.afterMetadata`, `.afterCommit`.
 *
 * An append loses its commit only to a concurrent layout change (an optimize, or another append
 * whose row counts changed the layout's); it then routes its rows again through the winner's
 * layout, at most [[MaxAttempts]] times.
 *
 * {{{
 *   Append.run(spark, "file:/data/sales", newRows)   // AppendResult(8, 1000, 4)
 * }}}
 */
object Append {
  val MaxAttempts = 5

  /** @param roles computes the roles of indexes that need Python; without it such a table is refused */
  def run(session: SparkSession, root: String, rows: DataFrame, roles: Option[PythonRoles] = None): AppendResult =
    TableTransaction.retryingOnLayoutChange(TableTransaction.latest(session, root, "append", s"append to $root"),
      MaxAttempts) { txn =>
      val layout = txn.layout
      val committed = txn.commit(TableWrite("APPEND", AppendColumns.conformed(rows, txn.schema, root),
        Routing.throughLayout(layout), Nil, Some(layout), JObject()), roles)
      AppendResult(committed.snapshot.version, committed.rows, committed.added.size)
    }
}

/**
 * What one append committed (Python's `AppendResult`). With `optimize.auto`, `optimize` is what
 * the iteration run after the commit committed and `optimizeError` why it failed: the append is
 * committed either way, so a caller must not retry it.
 */
final case class AppendResult(version: Long, rows: Long, filesAdded: Long, optimize: Option[OptimizeResult] = None,
                              optimizeError: Option[String] = None) {
  def toJson: String = JsonMethods.compact(JsonMethods.render(
    ("version" -> version) ~ ("rows" -> rows) ~ ("filesAdded" -> filesAdded) ~
      ("optimize" -> optimize.map(o => JsonMethods.parse(o.toJson))) ~ ("optimizeError" -> optimizeError)))
}
