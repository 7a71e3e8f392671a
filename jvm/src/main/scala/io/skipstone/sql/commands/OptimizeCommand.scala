package io.skipstone.sql.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType

import io.skipstone.sql.{LayoutSpec, ResolvedTarget, SkipstoneSqlException, Target}

/**
 * `OPTIMIZE t [LAYOUT AMOEBA | KD | PAW | QDTREE | ZORDER | HILBERT [BY (cols)]]`.
 *
 * Layout policies and tree builders are Python (`skipstone.layout`), and the query path must
 * never call back into Python, so from SQL this checks the statement and says how to run it.
 */
final case class OptimizeCommand(target: Target, layout: Option[LayoutSpec]) extends SkipstoneCommand {
  override def statement: String = "OPTIMIZE"
  override def schema: StructType = new StructType()

  override def run(session: SparkSession): Seq[Row] = {
    layout.foreach(OptimizeCommand.check)
    val root = ResolvedTarget(session, target).managedRoot(session, statement)
    throw new SkipstoneSqlException(
      s"$statement ${target.sql}: optimizing a table runs Skipstone's layout policies, which are Python " +
        s"and cannot run from a SQL session. Run it from Python, e.g. Skipstone.for_path(spark, '$root')" +
        s".optimize(AmoebaAdaptive()), or from a shell: skipstone optimize $root --policy amoeba-adaptive (docs/cli.md)")
  }
}

object OptimizeCommand {
  val Layouts: Seq[String] = Seq("amoeba", "kd", "paw", "qdtree", "zorder", "hilbert")
  private val NeedColumns = Set("zorder", "hilbert")

  def check(layout: LayoutSpec): Unit = {
    if (!Layouts.contains(layout.name)) {
      throw new SkipstoneSqlException(s"OPTIMIZE: unknown LAYOUT ${layout.name.toUpperCase} " +
        s"(one of ${Layouts.map(_.toUpperCase).mkString(", ")})")
    }
    if (NeedColumns.contains(layout.name) && layout.columns.isEmpty) {
      throw new SkipstoneSqlException(s"OPTIMIZE: LAYOUT ${layout.name.toUpperCase} needs BY (columns)")
    }
  }
}
