package io.skipstone.sql.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType
import org.json4s._
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import io.skipstone.layout.builders.BuiltLayouts
import io.skipstone.sql.{LayoutSpec, ResolvedTarget, SkipstoneSqlException, Target}
import io.skipstone.table.{OptimizeIteration, OptimizeResult, PolicyFailed, PythonDriver, PythonOptimizer, PythonPolicy,
  PythonRoles, Relayout, TableLog, TableTransaction}

/**
 * `OPTIMIZE t [LAYOUT <name> [BY (cols)]]` on a managed table: one row per committed iteration
 * (`path`, `metrics`, as Delta Lake's `OPTIMIZE`).
 *
 * Without `LAYOUT` it is one iteration of continuous optimization ([[OptimizeIteration]], the
 * loop Python's `t.optimize()` runs); its `layout` strategy asks the session's Python policy.
 * With it, the whole table rewritten under that layout. The layouts the JVM builds
 * ([[BuiltLayouts]]) run here from any session, never asking Python to build them; layouts
 * built from the logged workload and the layout policies are Python: a session whose driver is
 * Python registered them (see [[PythonOptimizer]]); a session without Python runs what the JVM
 * can (absorbing other writers' files, compaction) and then fails naming what needs Python and
 * the command that runs it.
 */
final case class OptimizeCommand(target: Target, layout: Option[LayoutSpec]) extends SkipstoneCommand {
  override def statement: String = "OPTIMIZE"
  override def schema: StructType = OptimizeCommand.Schema

  override def run(session: SparkSession): Seq[Row] = {
    layout.foreach(OptimizeCommand.check)
    val root = ResolvedTarget(session, target).managedRoot(session, statement)
    val results = (layout, PythonOptimizer.current) match {
      case (Some(l), _) if BuiltLayouts.named(l.name).isDefined => Seq(builtIn(session, root, l))
      case (Some(l), Some(python)) => fromPython(python.optimize(session, root, layoutJson(l)))
      case (Some(l), None) => throw new SkipstoneSqlException(s"$shown: the JVM builds ${BuiltLayouts.shown}; " +
        s"LAYOUT ${l.name.toUpperCase} is built by Skipstone's Python builders, and this session has no Python " +
        s"driver. Run it from a shell: ${OptimizeCommand.cli(root, layout)} (docs/cli.md), or run this statement " +
        "in a pyspark session with Skipstone")
      case (None, python) => iterate(session, root, python)
    }
    val rows = results.map(r => OptimizeCommand.row(session, root, Some(r)))
    // only a layout Python chooses (LAYOUT AUTO) may find nothing to change
    val nothing = layout.fold(OptimizeCommand.NothingToDo)(l => s"nothing to optimize: ${OptimizeCommand.describe(l)} " +
      "kept the table's layout, which serves its logged queries as well as any it would build")
    if (rows.isEmpty) Seq(OptimizeCommand.row(session, root, None, nothing)) else rows
  }

  /**
   * The rewrite under a layout the JVM builds, on the newest version. Python computes only the
   * roles of indexes that a Python function computes (a GeoBox's boxes), when the session has it.
   */
  private def builtIn(session: SparkSession, root: String, l: LayoutSpec): OptimizeResult = {
    val base = TableLog.latest(session.sessionState.newHadoopConf(), root).getOrElse(
      throw new SkipstoneSqlException(s"$shown: ${target.sql} is not a Skipstone table"))
    val roles = PythonOptimizer.current.filter(_ =>
      PythonRoles.requiredBy(session, root, TableTransaction.schemaOf(base.properties)).nonEmpty)
      .flatMap(python => Option(python.roles(session, root)))
    Relayout.builtIn(session, root, base.version, l.name, l.columns, roles, s"$statement ${target.sql}")
  }

  private def shown: String = s"$statement ${target.sql}" + layout.fold("")(l => " " + OptimizeCommand.describe(l))

  private def layoutJson(l: LayoutSpec): String = JsonMethods.compact(JsonMethods.render(("name" -> l.name) ~ ("columns" -> l.columns)))

  private def fromPython(json: String): Seq[OptimizeResult] = JsonMethods.parse(json) match {
    case JArray(results) => results.map(r => OptimizeResult.fromJson(JsonMethods.compact(r)))
    case error => throw new SkipstoneSqlException(s"$statement: ${(error \ "error").values}")
  }

  /** One iteration of the table's strategies; without a Python driver, what needed one is named after what committed. */
  private def iterate(session: SparkSession, root: String, python: Option[PythonDriver]): Seq[OptimizeResult] = {
    val outcome = try OptimizeIteration.run(session, root, python.map(PythonPolicy.asLayoutPolicy),
      python.flatMap(p => Option(p.roles(session, root)))) catch {
      case e: PolicyFailed => throw new SkipstoneSqlException(s"$statement: ${e.getMessage}")
    }
    if (outcome.needPython.nonEmpty) {
      val done = outcome.committed.map(r => s"committed version ${r.version} (${r.strategy}: ${r.reason}); ").mkString
      throw new SkipstoneSqlException(s"$shown: ${done}not run, as this session has no Python driver: " +
        s"${outcome.needPython.mkString("; ")}. Run them from a shell: ${OptimizeCommand.cli(root, None)} (docs/cli.md), " +
        s"or optimize only with what SQL runs: ALTER TABLE ${target.sql} SET TBLPROPERTIES ('optimize.strategies' = 'compaction')")
    }
    outcome.committed.toSeq
  }
}

object OptimizeCommand {
  val Schema: StructType = StructType.fromDDL("path STRING, metrics STRUCT<version: BIGINT, strategy: STRING, " +
    "reason: STRING, numFilesAdded: BIGINT, numFilesRemoved: BIGINT, bytesAdded: BIGINT, bytesRead: BIGINT, " +
    "rowsRewritten: BIGINT, benefit: DOUBLE, cost: DOUBLE>")

  /**
   * What is checked before the table is looked at: the layout is one the JVM builds, with the
   * `BY` it needs, or one the session's Python builds (which checks its own `BY`). Without
   * Python, the JVM cannot tell another name from a layout Python would build: running it says so.
   */
  def check(layout: LayoutSpec): Unit = BuiltLayouts.named(layout.name) match {
    case Some(built) => built.missingBy(layout.columns).foreach(m => throw new SkipstoneSqlException(s"OPTIMIZE: $m"))
    case None => PythonOptimizer.current.foreach { _ =>
      val python = PythonOptimizer.layoutNames
      if (!python.contains(layout.name)) throw new SkipstoneSqlException(s"OPTIMIZE: unknown LAYOUT " +
        s"${layout.name.toUpperCase} (one of ${(BuiltLayouts.All.map(_.name) ++ python).map(_.toUpperCase).mkString(", ")})")
    }
  }

  def describe(layout: LayoutSpec): String =
    s"LAYOUT ${layout.name.toUpperCase}" + (if (layout.columns.isEmpty) "" else layout.columns.mkString(" BY (", ", ", ")"))

  /** The CLI command that runs the same optimize with Python. */
  def cli(root: String, layout: Option[LayoutSpec]): String = s"skipstone optimize $root" + layout.fold("") { l =>
    s" --layout ${l.name}" + (if (l.columns.isEmpty) "" else s" --columns ${l.columns.mkString(",")}")
  }

  val NothingToDo = "nothing to optimize: no strategy selected anything"

  /**
   * A result row; the bytes added are read from the committed version (the files it lists that
   * its predecessor did not). Without a result, the row says `nothing` happened.
   */
  def row(session: SparkSession, root: String, result: Option[OptimizeResult], nothing: String = NothingToDo): Row =
    result match {
      case None => Row(root, Row(null, null, nothing, 0L, 0L, 0L, 0L, 0L, 0.0, 0.0))
      case Some(r) =>
        val conf = session.sessionState.newHadoopConf()
        val before = TableLog.read(conf, root, r.version - 1).livePaths
        val bytesAdded = TableLog.read(conf, root, r.version).files.filterNot(f => before.contains(f.path)).map(_.size).sum
        Row(root, Row(r.version, r.strategy, r.reason, r.filesAdded, r.filesRemoved, bytesAdded, r.bytesRead,
          r.rowsRewritten, r.benefit, r.cost))
    }
}
