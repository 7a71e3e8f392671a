package io.skipstone.query

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.{CatalogFileIndex, FileIndex, HadoopFsRelation, InMemoryFileIndex, LogicalRelation}

import org.apache.spark.sql.types.StructType

import io.skipstone.SkipstoneConf
import io.skipstone.metadata.{FilePaths, MetadataCache}

/**
 * Puts a [[SkippingFileIndex]] under every filter over a file relation that has Skipstone
 * metadata, capturing the filter's condition (Python UDF calls included: they are still in the
 * condition here and never reach the scan's data filters).
 *
 * Runs in the operator-optimization fixed point, so it must be idempotent: an already wrapped
 * relation is re-wrapped only if the filter above it changed, keeping the captured condition
 * identical to the one Spark evaluates.
 */
case class SkippingRule(session: SparkSession) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!SkipstoneConf.enabled(session)) plan
    else {
      QueryStatsListener.ensureRegistered(session)
      transform(plan)
    }

  private def transform(plan: LogicalPlan): LogicalPlan = plan.transformDown {
      case filter @ Filter(condition, relation @ LogicalRelation(fs: HadoopFsRelation, _, _, _, _)) =>
        wrap(fs.location, condition, fs.schema).fold(filter: LogicalPlan) { index =>
          filter.copy(child = relation.copy(relation = fs.copy(location = index)(fs.sparkSession)))
        }
    }

  /** The new index to use, or None to leave the relation as it is. */
  private def wrap(location: FileIndex, condition: Expression, schema: StructType): Option[SkippingFileIndex] =
    location match {
      case s: SkippingFileIndex if s.normalizedCondition == SkippingFileIndex.normalize(condition) => None
      case s: SkippingFileIndex => Some(new SkippingFileIndex(s.delegate, condition, s.datasetRoot, schema, session))
      case _: InMemoryFileIndex | _: CatalogFileIndex =>
        SkippingRule.datasetRoot(location)
          .filter(root => MetadataCache.current(session, root).isDefined)
          .map(root => new SkippingFileIndex(location, condition, root, schema, session))
      case _ => None
    }

  private type Expression = org.apache.spark.sql.catalyst.expressions.Expression
}

object SkippingRule {
  /** A dataset is identified by its single root; listings of several roots are left alone. */
  def datasetRoot(location: FileIndex): Option[String] = location.rootPaths match {
    case Seq(root) => Some(FilePaths.root(root.toUri))
    case _ => None
  }
}
