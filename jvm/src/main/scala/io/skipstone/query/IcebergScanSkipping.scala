package io.skipstone.query

import java.util.IdentityHashMap

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{And, Expression, PlanExpression, PredicateHelper}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec

import io.skipstone.metadata.MetadataCache
import io.skipstone.sources.{IcebergFiles, IcebergScans, IcebergTables}

/**
 * Narrows the scans of Iceberg tables that have Skipstone metadata built from the table
 * (`Skipstone.for_table(spark, "cat.db.t")`) to the data files their filter may match.
 *
 * Iceberg plans a scan itself: it pins a snapshot, prunes partitions and files with its own
 * statistics, and pairs each data file with the delete files that apply to it. Skipstone lets
 * that planning run whole and only drops files from it, after every planner strategy, the way
 * Iceberg's own runtime filtering does (see [[IcebergScans]]): the snapshot, deletes, schema
 * evolution (columns by field id) and splitting stay Iceberg's. Each listed file goes through a
 * [[SkippingFileIndex]] over an [[IcebergFiles]] listing, which decides with the metadata as for
 * any dataset: a file the index lacks (added after the build, or another snapshot's, by path and
 * size) is read, and the stats say why.
 *
 * Iceberg's scan object is shared by the logical plan and every physical plan made from it
 * (adaptive re-planning), so what narrowed it is remembered with its tasks: the same filter
 * finds it narrowed already, and any other use of the scan (another filter, none) gets every
 * task back. The rule runs as a post-planner rule and again before columnar transitions
 * (adaptive stages, subqueries).
 */
case class IcebergScanSkipping(session: SparkSession) extends Rule[SparkPlan] with PredicateHelper with Logging {
  import IcebergScanSkipping._

  override def apply(plan: SparkPlan): SparkPlan =
    if (!QueryConf.enabled(session) || !plan.exists(isIcebergScan)) plan
    else visit(plan, filtersAbove(plan))

  private def visit(plan: SparkPlan, filters: IdentityHashMap[AnyRef, Seq[Option[Seq[Expression]]]]): SparkPlan = plan match {
    case FilteredIcebergScan(m, scan) =>
      val next = atScan(scan, Some(m.condition), filters)
      if (next eq scan) plan else m.rebuild(IcebergScan.replaced(m.scan, next))
    case IcebergScan(scan) =>
      val next = atScan(scan, None, filters)
      if (next eq scan) plan else IcebergScan.replaced(plan, next)
    case other => other.mapChildren(visit(_, filters))
  }

  /**
   * The scan node to plan with: narrowed now, as it was, or given every task back. A scan is
   * narrowed only when each of its nodes sits right under a filter with these same conjuncts
   * (those a pruning may use); once seen under another filter or none, it is marked
   * [[Unnarrowed]] and reads every file from then on.
   */
  private def atScan(scan: BatchScanExec, condition: Option[Expression],
                     filters: IdentityHashMap[AnyRef, Seq[Option[Seq[Expression]]]]): BatchScanExec = {
    val key = condition.map(pruningKey)
    val uses = Option(filters.get(scan.scan)).getOrElse(Nil).distinct
    IcebergScans.narrowedBy(scan.scan) match {
      case Some(Narrowing(by, _)) if uses == Seq(Some(by)) => scan
      case Some(Unnarrowed) => scan
      case Some(_) =>
        logDebug("Skipstone: an Iceberg scan narrowed for one filter is planned under another; reading all its files")
        IcebergScans.widen(scan.scan, Unnarrowed)
        replanned(scan)
      case None if uses == Seq(key) && key.isDefined => narrowed(scan, condition.get).getOrElse(scan)
      case None if uses.size > 1 =>
        IcebergScans.widen(scan.scan, Unnarrowed)
        scan
      case None => scan
    }
  }

  private def narrowed(scan: BatchScanExec, condition: Expression): Option[BatchScanExec] =
    try {
      val conf = session.sessionState.newHadoopConf()
      for {
        metadata <- MetadataCache.current(session, IcebergScans.root(conf, scan.scan))
        if metadata.definition.read.exists(_.format == IcebergTables.Format)
        snapshot = IcebergScans.snapshot(conf, scan.scan)
        columns = snapshot.schema.fieldNames.toSet
        // Conjuncts over the table's columns as the scan reads them, not over its metadata columns (`_file`, `_pos`)
        onTable = splitConjunctivePredicates(condition)
          .filter(_.references.forall(a => columns(a.name) && scan.outputSet.contains(a)))
        dataFilters <- onTable.reduceOption(And).flatMap(c => SkippingRule.prunable(c, Nil, session)._2)
      } yield {
        QueryStatsListener.ensureRegistered(session)
        val tasks = IcebergScans.tasks(scan.scan)
        val files = tasks.flatMap(t => IcebergScans.dataFile(t).map(t -> _))
        val statuses = IcebergTables.statuses(conf, snapshot.root, files.map(_._2))
        val index = new SkippingFileIndex(new IcebergFiles(snapshot, statuses), dataFilters, snapshot.root,
          snapshot.schema, IcebergTables.reading(snapshot.schema), session)
        val kept = new IdentityHashMap[AnyRef, Boolean]()
        index.listFiles(Nil, Nil).flatMap(_.files).foreach(f => kept.put(f.fileStatus, true))
        val ruledOut = new IdentityHashMap[AnyRef, Boolean]()
        files.zip(statuses).foreach { case ((task, _), status) => if (!kept.containsKey(status)) ruledOut.put(task, true) }
        IcebergScans.narrow(scan.scan, task => !ruledOut.containsKey(task), Narrowing(pruningKey(condition), index))
        replanned(scan)
      }
    } catch {
      case NonFatal(e) =>
        logWarning("Skipstone: skipping failed for an Iceberg scan; reading all its files", e)
        None
    }

  /** A new node over the same scan: the old one may hold a batch planned from the old tasks. */
  private def replanned(scan: BatchScanExec): BatchScanExec = {
    val copy = scan.copy()
    copy.copyTagsFrom(scan)
    copy
  }
}

object IcebergScanSkipping extends PredicateHelper {
  /** What narrowed an Iceberg scan: the filter's [[pruningKey]] and the listing that decided. */
  final case class Narrowing(key: Seq[Expression], index: SkippingFileIndex)

  /** The mark of a scan used under several filters (or under one and none): never narrowed. */
  case object Unnarrowed

  def isIcebergScan(plan: SparkPlan): Boolean = plan match {
    case b: BatchScanExec => IcebergScans.readsSnapshot(b.scan, b.table)
    case _ => false
  }

  /** The listing that narrowed an Iceberg scan node's tasks, if Skipstone narrowed them. */
  def index(plan: SparkPlan): Option[SkippingFileIndex] = plan match {
    case b: BatchScanExec if isIcebergScan(b) => IcebergScans.narrowedBy(b.scan).collect { case Narrowing(_, index) => index }
    case _ => None
  }

  /**
   * A filter's conjuncts that a pruning may use, normalized: those without subqueries, which
   * Spark plans into the condition between this rule's runs, so one filter keeps one key.
   */
  private def pruningKey(condition: Expression): Seq[Expression] =
    splitConjunctivePredicates(condition).filterNot(_.exists(_.isInstanceOf[PlanExpression[_]])).map(SkippingFileIndex.normalize)

  /** For each Iceberg scan object of the plan, the [[pruningKey]] of the filter right above each of its nodes. */
  private def filtersAbove(plan: SparkPlan): IdentityHashMap[AnyRef, Seq[Option[Seq[Expression]]]] = {
    val found = new IdentityHashMap[AnyRef, Seq[Option[Seq[Expression]]]]()
    def add(scan: BatchScanExec, key: Option[Seq[Expression]]): Unit =
      found.put(scan.scan, Option(found.get(scan.scan)).getOrElse(Nil) :+ key)
    def walk(p: SparkPlan): Unit = p match {
      case FilteredIcebergScan(m, scan) => add(scan, Some(pruningKey(m.condition)))
      case IcebergScan(scan) => add(scan, None)
      case other => other.children.foreach(walk)
    }
    walk(plan)
    found
  }

  /**
   * The filter right above an Iceberg scan, with the Python UDF calls Spark moved above it put
   * back ([[FilterOverScan]]): what the scan's rows must meet, and the scan.
   */
  private object FilteredIcebergScan {
    def unapply(plan: SparkPlan): Option[(FilterOverScan.Matched, BatchScanExec)] =
      FilterOverScan.matched(plan, IcebergScan.unapply(_).isDefined).flatMap(m => IcebergScan.unapply(m.scan).map(m -> _))
  }

  /** An Iceberg query scan node, bare or under what Skipstone shows of it ([[ScanAnnotation]]). */
  private object IcebergScan {
    def unapply(plan: SparkPlan): Option[BatchScanExec] = plan match {
      case scan: BatchScanExec if isIcebergScan(scan) => Some(scan)
      case annotation: ScanAnnotation => unapply(annotation.child)
      case _ => None
    }

    /** `plan` (the scan, or its annotation) with `scan` in the place of its scan. */
    def replaced(plan: SparkPlan, scan: BatchScanExec): SparkPlan = plan match {
      case annotation: ScanAnnotation => annotation.withNewChildren(Seq(replaced(annotation.child, scan)))
      case _ => scan
    }
  }
}
