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
 * The condition is the filter's right above the scan, with the Python UDF calls Spark moved
 * above it put back ([[FilterOverScan]]), so that UDF mappings answer them as on plain files.
 *
 * Runs as a post-planner rule and again before columnar transitions (adaptive re-planning and
 * subqueries pass there): a scan already wrapped is no Delta scan any more, so it is idempotent.
 */
case class DeltaScanSkipping(session: SparkSession) extends Rule[SparkPlan] with PredicateHelper {

  override def apply(plan: SparkPlan): SparkPlan =
    if (!QueryConf.enabled(session)) plan
    else plan.transformDown {
      case node: FilterExec => FilterOverScan.matched(node, isDeltaScan).filter(_.condition.deterministic)
        .flatMap(m => under(m.scan, m.condition).map(m.rebuild)).getOrElse(node)
    }

  /** A Delta scan, bare or (deletion vectors read by row index) under the projection that builds its `_metadata`. */
  private def isDeltaScan(plan: SparkPlan): Boolean = plan match {
    case scan: FileSourceScanExec => DeltaTables.readsSnapshot(scan.relation.location)
    case ProjectExec(_, scan: FileSourceScanExec) => DeltaTables.readsSnapshot(scan.relation.location)
    case _ => false
  }

  /** What [[isDeltaScan]] accepted, its scan wrapped; None to leave it. */
  private def under(plan: SparkPlan, condition: Expression): Option[SparkPlan] = plan match {
    case scan: FileSourceScanExec => wrapped(scan, condition)
    case project @ ProjectExec(_, scan: FileSourceScanExec) => wrapped(scan, condition).map(s => project.copy(child = s))
    case _ => None
  }

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
