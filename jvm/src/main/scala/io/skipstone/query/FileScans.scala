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
  def locations(plan: SparkPlan): Seq[FileIndex] = scans(plan).map(_._1)

  /**
   * Each distinct file index of the plan's file scans with the top-level columns its scans read
   * (all of them, when two scans of one index read different columns), in plan order.
   */
  def scans(plan: SparkPlan): Seq[(FileIndex, Seq[String])] = {
    val found = Seq.newBuilder[(FileIndex, Seq[String])]
    def visit(p: SparkPlan): Unit = {
      p match {
        case scan: FileSourceScanExec => found += scan.relation.location -> scan.requiredSchema.fieldNames.toSeq
        case a: AdaptiveSparkPlanExec => visit(a.executedPlan)
        case q: QueryStageExec => visit(q.plan)
        case _ =>
      }
      p.children.foreach(visit)
      p.subqueries.foreach(visit)
    }
    visit(plan)
    found.result().foldLeft(Vector.empty[(FileIndex, Seq[String])]) { case (acc, (l, columns)) =>
      acc.indexWhere(_._1 eq l) match {
        case -1 => acc :+ (l -> columns)
        case i => acc.updated(i, l -> (acc(i)._2 ++ columns).distinct)
      }
    }
  }
}
