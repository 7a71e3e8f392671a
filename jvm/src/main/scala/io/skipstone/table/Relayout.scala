package io.skipstone.table

import org.apache.spark.sql.SparkSession
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import io.skipstone.layout.{LayoutDocument, Leaf, TreeLayout}
import io.skipstone.layout.builders.{BuiltLayouts, LayoutBuilders}
import io.skipstone.metadata.ColumnPath

/**
 * `OPTIMIZE t LAYOUT <name> [BY (columns)]`: every file rewritten under a layout built for the
 * whole table, committed in one OPTIMIZE version that replaces every file and records the
 * layout and its spec (`layout.spec`); readers keep the version they resolved. A
 * [[TableTransaction]] with failpoints `optimize.relayout.afterWrite`, `.afterMetadata`, `.afterCommit`.
 *
 * The layouts the JVM builds ([[BuiltLayouts]]) are built here, from any session ([[builtIn]]);
 * a layout Python builds (from the table's logged workload) arrives as a document ([[run]]).
 *
 * {{{
 *   Relayout.builtIn(spark, "file:/data/sales", 7, "kd", Seq("a", "b"), None, "OPTIMIZE sales")
 * }}}
 */
object Relayout {
  /**
   * The rewrite under `LAYOUT name BY (columns)` of a layout the JVM builds: its spec with the
   * table's block size (`layout.blockRows`), built on the table's stored sample, and [[run]].
   * `columns` are matched to the layout's columns as Spark matches names; an error starts with
   * `statement` (how the caller names what it runs) and names the layout and the column.
   */
  def builtIn(session: SparkSession, root: String, readVersion: Long, name: String, columns: Seq[String],
              roles: Option[PythonRoles], statement: String): OptimizeResult = {
    def refuse(message: String) = throw new IllegalArgumentException(s"$statement $message")
    val shown = s"LAYOUT ${name.toUpperCase}" + (if (columns.isEmpty) "" else columns.mkString(" BY (", ", ", ")"))
    val layout = BuiltLayouts.named(name).getOrElse(refuse(s"$shown: not a layout the JVM builds (${BuiltLayouts.shown})"))
    layout.missingBy(columns).foreach(refuse)
    val base = TableLog.read(session.sessionState.newHadoopConf(), root, readVersion)
    val schema = LayoutDocument.read(base.layout).schema
    val known = schema.map(_.name)
    val resolver = session.sessionState.conf.resolver
    val missing = columns.filter(ColumnPath.resolveName(_, known, resolver).isEmpty)
    if (missing.nonEmpty) {
      refuse(s"$shown: no layout column ${missing.map(c => s"'$c'").mkString(", ")} (the table's: ${known.mkString(", ")})")
    }
    val resolved = columns.flatMap(ColumnPath.resolveName(_, known, resolver))
    val repeated = resolved.groupBy(identity).collect { case (c, named) if named.size > 1 => c }
    if (repeated.nonEmpty) {
      refuse(s"$shown names ${repeated.toSeq.sorted.mkString(", ")} more than once; name each column once")
    }
    val blockRows = base.properties("layout.blockRows").toDouble
    // rint: half to even, as Python's round() made the block rows of the specs it wrote
    val spec = LayoutBuilders.specFor(layout.name, resolved, math.max(1L, math.rint(blockRows).toLong))
    val sample = TableSample.read(session, root, base.properties("layout.sample"), schema)
    val built = if (sample.rows == 0) TreeLayout(schema, Leaf(0, 0.0))
      else LayoutBuilders.build(spec, sample, blockRows, math.max(base.totalRows, 1L).toDouble)
    run(session, root, readVersion, built, JsonMethods.compact(JsonMethods.render(spec)), layout.shown, resolved, roles)
  }

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

  /** [[builtIn]] for Python: `columns` as a JSON list, the result as JSON; `roles` may be null. */
  def builtInFromPython(session: SparkSession, root: String, readVersion: Long, name: String, columnsJson: String,
                        roles: PythonRoles, statement: String): String =
    builtIn(session, root, readVersion, name, names(columnsJson), Option(roles), statement).toJson

  /** [[run]] for Python: the layout as its JSON document, `columns` as a JSON list, the result as JSON; `roles` may be null. */
  def runFromPython(session: SparkSession, root: String, readVersion: Long, layoutJson: String, spec: String,
                    name: String, columnsJson: String, roles: PythonRoles): String =
    run(session, root, readVersion, LayoutDocument.parse(layoutJson), spec, name, names(columnsJson), Option(roles)).toJson

  private def names(json: String): Seq[String] = {
    implicit val formats: org.json4s.Formats = org.json4s.DefaultFormats
    JsonMethods.parse(json).extract[Seq[String]]
  }
}
