package io.skipstone.query

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.catalog.CatalogStatistics
import org.apache.spark.sql.catalyst.expressions.{And, Expression, PredicateHelper, SubqueryExpression}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.{CatalogFileIndex, DataSourceUtils, FileIndex, HadoopFsRelation, InMemoryFileIndex, LogicalRelation}

import io.skipstone.metadata.{FilePaths, MetadataCache, ReadContext}

/**
 * Puts a [[SkippingFileIndex]] under every filter over a file relation that has Skipstone
 * metadata, capturing the filter's condition (Python UDF calls included: they are still in the
 * condition here and never reach the scan's data filters).
 *
 * Runs in the operator-optimization fixed point, so it must be idempotent: an already wrapped
 * relation is re-wrapped only if the filter above it changed, keeping the captured condition
 * identical to the one Spark evaluates.
 */
case class SkippingRule(session: SparkSession) extends Rule[LogicalPlan] with PredicateHelper {

  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!QueryConf.enabled(session)) plan
    else {
      QueryStatsListener.ensureRegistered(session)
      transform(plan)
    }

  private def transform(plan: LogicalPlan): LogicalPlan = plan.transformDown {
    case filter @ Filter(condition, relation @ LogicalRelation(fs: HadoopFsRelation, _, _, _, _)) =>
      val partitionColumns = fs.partitionSchema.fieldNames.toSeq
      val (partitionFilters, dataFilters) = SkippingRule.prunable(condition, partitionColumns, session)
      wrap(fs, partitionFilters, dataFilters).fold(filter: LogicalPlan) { index =>
        val pruned = index.delegate ne SkippingRule.unwrapped(fs.location)
        // A catalog table's size comes from its statistics, when it has some: make them the
        // size of the files this query reads, as Spark does after pruning partitions.
        val table = relation.catalogTable.map { t =>
          if (t.stats.isEmpty && !pruned) t
          else t.copy(stats = Some(t.stats.fold(CatalogStatistics(BigInt(index.sizeInBytes)))(
            _.copy(sizeInBytes = BigInt(index.sizeInBytes)))))
        }
        filter.copy(child = relation.copy(relation = fs.copy(location = index)(fs.sparkSession), catalogTable = table))
      }
  }

  /** The new index to use, or None to leave the relation as it is. */
  private def wrap(fs: HadoopFsRelation, partitionFilters: Seq[Expression],
                   dataFilters: Option[Expression]): Option[SkippingFileIndex] = {
    val reading = ReadContext.Reading.of(fs)
    fs.location match {
      case s: SkippingFileIndex if dataFilters.map(SkippingFileIndex.normalize).contains(s.normalizedCondition) => None
      case s: SkippingFileIndex =>
        dataFilters.map(c => new SkippingFileIndex(s.delegate, c, s.datasetRoot, fs.schema, reading, session))
      case location @ (_: InMemoryFileIndex | _: CatalogFileIndex) =>
        for {
          condition <- dataFilters
          root <- SkippingRule.datasetRoot(location)
          _ <- MetadataCache.current(session, root)
        } yield new SkippingFileIndex(prunePartitions(location, partitionFilters), condition, root, fs.schema,
          reading, session)
      case _ => None
    }
  }

  /**
   * Spark prunes a catalog table's partitions in a later batch (PruneFileSourcePartitions),
   * which no longer recognises the table once it is wrapped: prune here the same way, so that
   * the wrapped relation lists and estimates only the partitions the query reads.
   */
  private def prunePartitions(location: FileIndex, partitionFilters: Seq[Expression]): FileIndex = location match {
    case c: CatalogFileIndex if partitionFilters.nonEmpty => c.filterPartitions(partitionFilters)
    case other => other
  }
}

object SkippingRule extends PredicateHelper {
  def unwrapped(location: FileIndex): FileIndex = location match {
    case s: SkippingFileIndex => s.delegate
    case other => other
  }

  /** A dataset is identified by its single root; listings of several roots are left alone. */
  def datasetRoot(location: FileIndex): Option[String] = location.rootPaths match {
    case Seq(root) => Some(FilePaths.root(root.toUri))
    case _ => None
  }

  /**
   * The conjuncts that may prune, split into those on partition columns alone (Spark prunes
   * partitions with them) and the rest, for the metadata; none when the filter has anything
   * non-deterministic. Spark would push the deterministic conjuncts before the first
   * non-deterministic one (its own inferred `IS NOT NULL` among them), but dropping whole files
   * renumbers the scan's partitions, which seed `rand()` and number
   * `monotonically_increasing_id()`: the same query would return other rows with skipping on.
   */
  def prunable(condition: Expression, partitionColumns: Seq[String],
               session: SparkSession): (Seq[Expression], Option[Expression]) = {
    val pushable = if (!condition.deterministic) Nil
      else splitConjunctivePredicates(condition).filterNot(SubqueryExpression.hasSubquery)
    val resolver = session.sessionState.conf.resolver
    val onPartitions = pushable.filter { c =>
      c.references.nonEmpty && c.references.forall(a => partitionColumns.exists(resolver(_, a.name)))
    }
    (onPartitions, pushable.filterNot(onPartitions.contains).reduceOption(And))
  }
}
