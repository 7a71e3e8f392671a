package io.skipstone.table

import org.apache.spark.sql.SparkSession
import org.json4s.JsonDSL._

import io.skipstone.layout.LayoutDocument

/**
 * `OPTIMIZE t LAYOUT <name> [BY (columns)]`: every file rewritten under a layout built for the
 * whole table (the builders are Python; the layout arrives as a document), committed in one
 * OPTIMIZE version that replaces every file and records the layout and its spec
 * (`layout.spec`); readers keep the version they resolved. A [[TableTransaction]] with
 * failpoints `optimize.relayout.afterWrite`, `.afterMetadata`, `.afterCommit`.
 *
 * {{{
 *   Relayout.run(spark, "file:/data/sales", 7, kdLayout, """{"kind": "kd", ...}""", "KD", Seq("a", "b"))
 * }}}
 */
object Relayout {
  /**
   * @param spec    the layout spec's JSON, recorded as the table's `layout.spec`
   * @param name    the layout's name as SQL spells it (`KD`), with the `columns` it was asked to cut on
   */
  def run(session: SparkSession, root: String, readVersion: Long, layout: LayoutDocument, spec: String, name: String,
          columns: Seq[String], roles: Option[PythonRoles] = None): OptimizeResult = {
    val txn = TableTransaction.open(session, root, readVersion, "optimize.relayout", s"LAYOUT $name of $root")
    val old = txn.base.files
    val reason = s"LAYOUT $name" + (if (columns.isEmpty) "" else columns.mkString(" BY (", ", ", ")")) +
      s": every block rewritten, ${layout.blockIds.size} blocks"
    val info = ("strategy" -> "layout") ~ ("reason" -> reason) ~ ("policy" -> s"LAYOUT $name") ~
      ("selected" -> old.map(_.path).sorted) ~ ("bytesRead" -> old.map(_.size).sum) ~ ("description" -> reason)
    val committed = txn.commit(TableWrite("OPTIMIZE", txn.rowsOf(old), Routing.throughLayout(layout), old, Some(layout),
      info, properties = Map("layout.spec" -> spec)), roles)
    OptimizeResult(committed.snapshot.version, 0.0, committed.rows.toDouble, committed.rows, committed.added.size,
      old.size, "layout", reason, old.map(_.size).sum)
  }

  /** [[run]] for Python: the layout as its JSON document, `columns` as a JSON list, the result as JSON; `roles` may be null. */
  def runFromPython(session: SparkSession, root: String, readVersion: Long, layoutJson: String, spec: String,
                    name: String, columnsJson: String, roles: PythonRoles): String = {
    implicit val formats: org.json4s.Formats = org.json4s.DefaultFormats
    val columns = org.json4s.jackson.JsonMethods.parse(columnsJson).extract[Seq[String]]
    run(session, root, readVersion, LayoutDocument.parse(layoutJson), spec, name, columns, Option(roles)).toJson
  }
}
