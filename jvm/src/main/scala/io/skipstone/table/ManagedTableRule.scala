package io.skipstone.table

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.{FileIndex, HadoopFsRelation, InMemoryFileIndex, LogicalRelation}

import io.skipstone.metadata.ReadContext
import io.skipstone.query.{SkippingFileIndex, SkippingRule}

/**
 * Makes a relation over a managed table's root list its files from the table's newest version
 * (a [[ManifestFileIndex]], plus the files other writers dropped in) instead of the directory; under a filter, the manifest is wrapped
 * in the skipping wrapper so the query skips too. Runs before the skipping rule, in the same
 * fixed point: a relation already on a manifest is left alone, which is what pins the query to
 * the version it first saw. Independent of `spark.skipstone.enabled`: which files make up a
 * table is a matter of correct answers, not of skipping.
 */
case class ManagedTableRule(session: SparkSession) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.transformDown {
    case filter @ Filter(condition, relation @ LogicalRelation(fs: HadoopFsRelation, _, _, _, _)) =>
      pin(fs.location, Some(condition), fs).fold(filter: LogicalPlan) { index =>
        filter.copy(child = relation.copy(relation = fs.copy(location = index)(fs.sparkSession)))
      }
    case relation @ LogicalRelation(fs: HadoopFsRelation, _, _, _, _) =>
      pin(fs.location, None, fs).fold(relation: LogicalPlan) { index =>
        relation.copy(relation = fs.copy(location = index)(fs.sparkSession))
      }
  }

  /** The index listing from the manifest, or None when the relation is no managed table or already pinned. */
  private def pin(location: FileIndex, condition: Option[Expression], fs: HadoopFsRelation): Option[FileIndex] = {
    val directory = location match {
      case l: InMemoryFileIndex => Some(l)
      case s: SkippingFileIndex => s.delegate match { case l: InMemoryFileIndex => Some(l); case _ => None }
      case _ => None
    }
    for {
      listing <- directory
      root <- SkippingRule.datasetRoot(listing)
      (snapshot, unindexed) <- ManagedTables.resolve(session, root)
    } yield {
      WorkloadListener.ensureRegistered(session)
      val manifest = new ManifestFileIndex(root, snapshot, unindexed)
      val reading = ReadContext.Reading.of(fs)
      condition.flatMap(c => SkippingRule.prunable(c, Nil, session)._2)
        .fold(manifest: FileIndex)(c => new SkippingFileIndex(manifest, c, root, fs.schema, reading, session))
    }
  }
}
