package io.skipstone.query

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Expression, PredicateHelper}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{FileSourceScanExec, FilterExec, ProjectExec, SparkPlan}

import io.skipstone.metadata.{MetadataCache, ReadContext}
import io.skipstone.sources.DeltaTables

/**
 * Puts a [[SkippingFileIndex]] under the file scans of Delta Lake tables that have Skipstone
 * metadata built from the table (`Skipstone.for_path(spark, p, format="delta")`).
 *
 * Delta's own planning must stay whole: its pre-CBO rule `PrepareDeltaScan` pins the snapshot
 * and applies Delta's stats skipping to a relation over its `TahoeLogFileIndex`, and its planner
 * strategy adds the deletion-vector filter only to relations over a Delta index. A wrapper put
 * into the logical plan (as [[SkippingRule]] does for plain files) would hide the index from
 * both. So the wrapping happens on the physical plan, after every planner strategy, whatever
 * the order of `spark.sql.extensions`: the scan keeps Delta's file format and options, and the
 * wrapper lists through Delta's index (its snapshot, its partition pruning and stats skipping,
 * its per-file metadata such as deletion vectors) and only drops files from that listing.
 *
 * Runs as a post-planner rule and again before columnar transitions (adaptive re-planning and
 * subqueries pass there): a scan already wrapped is no Delta scan any more, so it is idempotent.
 */
case class DeltaScanSkipping(session: SparkSession) extends Rule[SparkPlan] with PredicateHelper {

  override def apply(plan: SparkPlan): SparkPlan =
    if (!QueryConf.enabled(session)) plan
    else plan.transformDown {
      case filter @ FilterExec(condition, scan: FileSourceScanExec) if applies(scan, condition) =>
        wrapped(scan, condition).fold(filter: SparkPlan)(s => filter.copy(child = s))
      // Deletion vectors read by row index: Delta's scan builds `_metadata` in a projection under the filter
      case filter @ FilterExec(condition, project @ ProjectExec(_, scan: FileSourceScanExec)) if applies(scan, condition) =>
        wrapped(scan, condition).fold(filter: SparkPlan)(s => filter.copy(child = project.copy(child = s)))
    }

  private def applies(scan: FileSourceScanExec, condition: Expression): Boolean =
    DeltaTables.readsSnapshot(scan.relation.location) && condition.deterministic

  private def wrapped(scan: FileSourceScanExec, condition: Expression): Option[FileSourceScanExec] = {
    val relation = scan.relation
    val columns = relation.schema.fieldNames.toSet
    // Conjuncts over the table's columns, as the scan reads them: Delta's deletion-vector filter
    // reads a column of its own (`__delta_internal_is_row_deleted`) that no index knows.
    val onTable = splitConjunctivePredicates(condition).filter(_.references.forall(a => columns(a.name) && scan.outputSet.contains(a)))
    for {
      root <- SkippingRule.datasetRoot(relation.location)
      metadata <- MetadataCache.current(session, root)
      if metadata.definition.read.exists(_.format == DeltaTables.Format)
      dataFilters <- onTable.reduceOption(org.apache.spark.sql.catalyst.expressions.And)
        .flatMap(c => SkippingRule.prunable(c, relation.partitionSchema.fieldNames.toSeq, session)._2)
    } yield {
      QueryStatsListener.ensureRegistered(session)
      val index = new SkippingFileIndex(relation.location, dataFilters, root, relation.schema,
        ReadContext.Reading.of(relation), session)
      scan.copy(relation = relation.copy(location = index)(relation.sparkSession))
    }
  }
}
