package io.skipstone.query

import org.apache.spark.sql.execution.{FileSourceScanExec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}
import org.apache.spark.sql.execution.datasources.FileIndex

/** The file indexes a physical plan scans, through adaptive stages and subqueries. */
object FileScans {
  /**
   * Each distinct file index of the plan's file scans, in plan order. Identity, not equality:
   * two equal wrappers of a self-join are two listings.
   */
  def locations(plan: SparkPlan): Seq[FileIndex] = {
    val found = Seq.newBuilder[FileIndex]
    def visit(p: SparkPlan): Unit = {
      p match {
        case scan: FileSourceScanExec => found += scan.relation.location
        case a: AdaptiveSparkPlanExec => visit(a.executedPlan)
        case q: QueryStageExec => visit(q.plan)
        case _ =>
      }
      p.children.foreach(visit)
      p.subqueries.foreach(visit)
    }
    visit(plan)
    found.result().foldLeft(Vector.empty[FileIndex]) { (acc, l) => if (acc.exists(_ eq l)) acc else acc :+ l }
  }
}
