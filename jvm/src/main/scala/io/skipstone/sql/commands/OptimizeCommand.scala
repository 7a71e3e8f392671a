package io.skipstone.sql.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType
import org.json4s._
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import io.skipstone.sql.{LayoutSpec, ResolvedTarget, SkipstoneSqlException, Target}
import io.skipstone.table.{JvmOptimization, OptimizeResult, PythonOptimizer, TableLog}

/**
 * `OPTIMIZE t [LAYOUT AMOEBA | KD | PAW | QDTREE | ZORDER | HILBERT [BY (cols)]]` on a managed
 * table: one row per committed iteration (`path`, `metrics`, as Delta Lake's `OPTIMIZE`).
 *
 * Without `LAYOUT` it is one iteration of continuous optimization, as Python's `t.optimize()`;
 * with it, the whole table rewritten under that layout. Layout policies and tree builders are
 * Python: a session whose driver is Python runs the Python implementation (see
 * [[PythonOptimizer]]); a session without Python runs what the JVM can (absorbing other
 * writers' files, compaction) and then fails naming what needs Python and the command that runs it.
 */
final case class OptimizeCommand(target: Target, layout: Option[LayoutSpec]) extends SkipstoneCommand {
  override def statement: String = "OPTIMIZE"
  override def schema: StructType = OptimizeCommand.Schema

  override def run(session: SparkSession): Seq[Row] = {
    layout.foreach(OptimizeCommand.check)
    val root = ResolvedTarget(session, target).managedRoot(session, statement)
    // checked here, before Python is asked, so that a session without Python names a wrong column too
    val resolved = layout.map(l => OptimizeCommand.resolveColumns(l, layoutColumns(session, root),
      session.sessionState.conf.caseSensitiveAnalysis, target))
    val results = PythonOptimizer.current match {
      case Some(python) => fromPython(python.optimize(session, root, resolved.map(layoutJson).orNull))
      case None => withoutPython(session, root)
    }
    val rows = results.map(r => OptimizeCommand.row(session, root, Some(r)))
    if (rows.isEmpty) Seq(OptimizeCommand.row(session, root, None)) else rows
  }

  /** The columns the table's layout can order by, as its layout JSON's schema names them. */
  private def layoutColumns(session: SparkSession, root: String): Seq[String] = {
    implicit val formats: Formats = DefaultFormats
    TableLog.latest(session.sessionState.newHadoopConf(), root).toSeq
      .flatMap(s => (s.layout \ "schema").children.flatMap(c => (c \ "name").extractOpt[String]))
  }

  private def shown: String = s"$statement ${target.sql}" + layout.fold("")(l => " " + OptimizeCommand.describe(l))

  private def layoutJson(l: LayoutSpec): String = JsonMethods.compact(JsonMethods.render(("name" -> l.name) ~ ("columns" -> l.columns)))

  private def fromPython(json: String): Seq[OptimizeResult] = JsonMethods.parse(json) match {
    case JArray(results) => results.map(r => OptimizeResult.fromJson(JsonMethods.compact(r)))
    case error => throw new SkipstoneSqlException(s"$statement: ${(error \ "error").values}")
  }

  private def withoutPython(session: SparkSession, root: String): Seq[OptimizeResult] = {
    layout.foreach { l =>
      throw new SkipstoneSqlException(s"$shown: building a layout runs Skipstone's tree builders, which are Python, " +
        s"and this session has no Python driver. Run it from a shell: ${OptimizeCommand.cli(root, layout)} (docs/cli.md), " +
        "or run this statement in a pyspark session with Skipstone")
    }
    val outcome = JvmOptimization.run(session, root)
    if (outcome.needPython.nonEmpty) {
      val done = outcome.committed.map(r => s"committed version ${r.version} (${r.strategy}: ${r.reason}); ").mkString
      throw new SkipstoneSqlException(s"$shown: ${done}not run, as this session has no Python driver: " +
        s"${outcome.needPython.mkString("; ")}. Run them from a shell: ${OptimizeCommand.cli(root, None)} (docs/cli.md), " +
        "or set optimize.strategies to 'compaction' to optimize only with what SQL runs")
    }
    outcome.committed
  }
}

object OptimizeCommand {
  val Layouts: Seq[String] = Seq("amoeba", "kd", "paw", "qdtree", "zorder", "hilbert")
  private val NeedColumns = Set("zorder", "hilbert")
  private val FromWorkload = Set("paw", "qdtree")

  val Schema: StructType = StructType.fromDDL("path STRING, metrics STRUCT<version: BIGINT, strategy: STRING, " +
    "reason: STRING, numFilesAdded: BIGINT, numFilesRemoved: BIGINT, bytesAdded: BIGINT, bytesRead: BIGINT, " +
    "rowsRewritten: BIGINT, benefit: DOUBLE, cost: DOUBLE>")

  def check(layout: LayoutSpec): Unit = {
    if (!Layouts.contains(layout.name)) {
      throw new SkipstoneSqlException(s"OPTIMIZE: unknown LAYOUT ${layout.name.toUpperCase} " +
        s"(one of ${Layouts.map(_.toUpperCase).mkString(", ")})")
    }
    if (NeedColumns.contains(layout.name) && layout.columns.isEmpty) {
      throw new SkipstoneSqlException(s"OPTIMIZE: LAYOUT ${layout.name.toUpperCase} needs BY (columns)")
    }
    val repeated = layout.columns.groupBy(_.toLowerCase).collect { case (_, named) if named.size > 1 => named.head }
    if (repeated.nonEmpty) {
      throw new SkipstoneSqlException(s"OPTIMIZE: LAYOUT ${layout.name.toUpperCase} BY (${layout.columns.mkString(", ")}) " +
        s"names ${repeated.toSeq.sorted.mkString(", ")} more than once; name each column once")
    }
    if (FromWorkload.contains(layout.name) && layout.columns.nonEmpty) {
      throw new SkipstoneSqlException(s"OPTIMIZE: LAYOUT ${layout.name.toUpperCase} cuts where the logged queries " +
        "cut; it takes no BY (columns)")
    }
  }

  /**
   * `layout` with each column as the table spells it (matched as Spark matches column names, so
   * `ZORDER BY (Region)` orders by `region` unless the session is case sensitive), or an error
   * naming every column the table's layout lacks.
   */
  def resolveColumns(layout: LayoutSpec, known: Seq[String], caseSensitive: Boolean, target: Target): LayoutSpec = {
    def find(c: String) = known.find(k => if (caseSensitive) k == c else k.equalsIgnoreCase(c))
    val missing = layout.columns.filter(find(_).isEmpty)
    if (missing.nonEmpty) {
      throw new SkipstoneSqlException(s"OPTIMIZE ${target.sql} ${describe(layout)}: " +
        s"no layout column ${missing.map(c => s"'$c'").mkString(", ")} (the table's: ${known.mkString(", ")})")
    }
    layout.copy(columns = layout.columns.flatMap(find))
  }

  def describe(layout: LayoutSpec): String =
    s"LAYOUT ${layout.name.toUpperCase}" + (if (layout.columns.isEmpty) "" else layout.columns.mkString(" BY (", ", ", ")"))

  /** The CLI command that runs the same optimize with Python. */
  def cli(root: String, layout: Option[LayoutSpec]): String = s"skipstone optimize $root" + layout.fold("") { l =>
    s" --layout ${l.name}" + (if (l.columns.isEmpty) "" else s" --columns ${l.columns.mkString(",")}")
  }

  /** A result row; the bytes added are read from the committed version (the files it lists that its predecessor did not). */
  def row(session: SparkSession, root: String, result: Option[OptimizeResult]): Row = result match {
    case None => Row(root, Row(null, null, "nothing to optimize: no strategy selected anything", 0L, 0L, 0L, 0L, 0L, 0.0, 0.0))
    case Some(r) =>
      val conf = session.sessionState.newHadoopConf()
      val before = TableLog.read(conf, root, r.version - 1).livePaths
      val bytesAdded = TableLog.read(conf, root, r.version).files.filterNot(f => before.contains(f.path)).map(_.size).sum
      Row(root, Row(r.version, r.strategy, r.reason, r.filesAdded, r.filesRemoved, bytesAdded, r.bytesRead,
        r.rowsRewritten, r.benefit, r.cost))
  }
}
