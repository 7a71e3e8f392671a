package io.skipstone.query

import org.apache.spark.sql.execution.{FileSourceScanExec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}
import org.apache.spark.sql.execution.datasources.FileIndex

/**
 * The file indexes a physical plan scans, through adaptive stages and subqueries: Spark's file
 * scans' and, for the Iceberg scans Skipstone narrowed, the listing that narrowed each.
 */
object FileScans {
  /**
   * Each distinct file index of the plan's file scans, in plan order. Identity, not equality:
   * two equal wrappers of a self-join are two listings.
   */
  def locations(plan: SparkPlan): Seq[FileIndex] = scans(plan).map(_._1)

  /** Whether the plan reads files: a file scan, or a scan of an Iceberg table. */
  def readsFiles(plan: SparkPlan): Boolean =
    leaves(plan).exists(p => p.isInstanceOf[FileSourceScanExec] || IcebergScanSkipping.isIcebergScan(p))

  /**
   * Each distinct file index of the plan's file scans with the top-level columns its scans read
   * (all of them, when two scans of one index read different columns), in plan order.
   */
  def scans(plan: SparkPlan): Seq[(FileIndex, Seq[String])] = {
    val found = leaves(plan).flatMap {
      case scan: FileSourceScanExec => Some(scan.relation.location -> scan.requiredSchema.fieldNames.toSeq)
      case other => IcebergScanSkipping.index(other).map(_ -> other.output.map(_.name))
    }
    found.foldLeft(Vector.empty[(FileIndex, Seq[String])]) { case (acc, (l, columns)) =>
      acc.indexWhere(_._1 eq l) match {
        case -1 => acc :+ (l -> columns)
        case i => acc.updated(i, l -> (acc(i)._2 ++ columns).distinct)
      }
    }
  }

  /** The plan's leaves, in plan order, through adaptive stages and subqueries. */
  private def leaves(plan: SparkPlan): Seq[SparkPlan] = {
    val found = Seq.newBuilder[SparkPlan]
    def visit(p: SparkPlan): Unit = {
      p match {
        case a: AdaptiveSparkPlanExec => visit(a.executedPlan)
        case q: QueryStageExec => visit(q.plan)
        case leaf if leaf.children.isEmpty => found += leaf
        case _ =>
      }
      p.children.foreach(visit)
      p.subqueries.foreach(visit)
    }
    visit(plan)
    found.result()
  }
}
