package io.skipstone.sql.commands

import scala.util.control.NonFatal

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, PlanExpression}
import org.apache.spark.sql.execution.{CommandExecutionMode, FileSourceScanExec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}
import org.apache.spark.sql.execution.command.{ExplainCommand, LeafRunnableCommand}

import io.skipstone.query.SkippingFileIndex
import io.skipstone.sql.{Explaining, SkippingScanExec}

/**
 * Spark's `EXPLAIN`, followed by a `== Skipstone ==` section: per indexed scan, the files and
 * bytes it skips. Spark builds a scan's `Location` from the file index's class name and root
 * paths only, and lists files only when the query runs, so the section lists each wrapped scan
 * (on the driver, reading no data) as the query would.
 */
final case class ExplainSkippingCommand(explain: ExplainCommand) extends LeafRunnableCommand {
  override lazy val output: Seq[Attribute] = explain.output

  override def run(session: SparkSession): Seq[Row] = {
    val section = ExplainSkippingCommand.section(session, explain)
    // marked: the plan's Skipstone nodes list their files as the query would, so the plan shows the numbers too
    Explaining(explain.run(session)).map(row => Row(row.getString(0) + section))
  }
}

object ExplainSkippingCommand {
  def section(session: SparkSession, explain: ExplainCommand): String = {
    val lines =
      try {
        val plan = session.sessionState.executePlan(explain.logicalPlan, CommandExecutionMode.SKIP).executedPlan
        scans(plan).collect { case (scan, index: SkippingFileIndex) => describe(scan, index) }
      } catch {
        case NonFatal(e) => Seq(s"skipping not shown: ${e.getMessage}")
      }
    if (lines.isEmpty) "" else lines.mkString("\n== Skipstone ==\n", "\n", "\n")
  }

  private def describe(scan: FileSourceScanExec, index: SkippingFileIndex): String = {
    // what the scan lists before the query runs: no runtime (subquery) filters
    def static(filters: Seq[Expression]) = filters.filterNot(_.exists(_.isInstanceOf[PlanExpression[_]]))
    index.listFiles(static(scan.partitionFilters), static(scan.dataFilters))
    val stats = index.lastStats
    s"Scan ${scan.relation} ${index.datasetRoot}: " + stats.fold("not listed")(SkippingScanExec.describe)
  }

  /** Each file scan of the plan with its file index, through adaptive stages and subqueries. */
  private def scans(plan: SparkPlan): Seq[(FileSourceScanExec, Any)] = {
    val found = Seq.newBuilder[(FileSourceScanExec, Any)]
    def visit(p: SparkPlan): Unit = {
      p match {
        case scan: FileSourceScanExec => found += scan -> scan.relation.location
        case a: AdaptiveSparkPlanExec => visit(a.executedPlan)
        case q: QueryStageExec => visit(q.plan)
        case _ =>
      }
      p.children.foreach(visit)
      p.subqueries.foreach(visit)
    }
    visit(plan)
    found.result()
  }
}
