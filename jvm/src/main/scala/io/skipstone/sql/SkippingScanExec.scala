package io.skipstone.sql

import org.apache.spark.SparkContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, PlanExpression, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, FileSourceScanExec, LeafExecNode, SQLExecution, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.vectorized.ColumnarBatch

import io.skipstone.query.{DeltaScanSkipping, IcebergScanSkipping, ListingStats, ScanAnnotation, SkippingFileIndex}

/**
 * What Skipstone skipped on one file scan, where Spark shows a scan's work: SQL metrics in the
 * SQL tab of Spark's UI (files and bytes before skipping, files and bytes skipped) and a line in
 * `EXPLAIN` and `df.explain()`. It sits right above the scan and passes its rows or batches
 * through untouched (Spark's scan node has a fixed set of metrics and a constructor that differs
 * between Spark versions, so it cannot be extended).
 *
 * The numbers are those of the scan's own listing, which runs when the scan executes (on the
 * driver); they reach the UI as driver-side metric updates, as the scan's "number of files read".
 */
final case class SkippingScanExec(child: SparkPlan) extends ScanAnnotation {
  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering
  override def supportsColumnar: Boolean = child.supportsColumnar
  override def supportsRowBased: Boolean = child.supportsRowBased
  override def vectorTypes: Option[Seq[String]] = child.vectorTypes
  override def nodeName: String = "Skipstone"

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "filesTotal" -> SQLMetrics.createMetric(sparkContext, "files before skipping"),
    "filesSkipped" -> SQLMetrics.createMetric(sparkContext, "files skipped"),
    "bytesTotal" -> SQLMetrics.createMetric(sparkContext, "bytes before skipping"),
    "bytesSkipped" -> SQLMetrics.createMetric(sparkContext, "bytes skipped"))

  private def index: Option[SkippingFileIndex] = SkippingScanExec.index(child)

  protected override def doExecute(): RDD[InternalRow] = {
    val rows = child.execute() // the scan lists its files here
    publish()
    rows
  }

  protected override def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val batches = child.executeColumnar()
    publish()
    batches
  }

  /** Every execution posts its own values: a re-run plan reuses the scan's listing, not its execution id. */
  private def publish(): Unit = index.flatMap(_.lastStats).foreach { stats =>
    metrics("filesTotal").set(stats.filesTotal)
    metrics("filesSkipped").set(stats.filesSkipped)
    metrics("bytesTotal").set(stats.bytesTotal)
    metrics("bytesSkipped").set(stats.bytesSkipped)
    val executionId = sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)
    SQLMetrics.postDriverMetricUpdates(sparkContext, executionId, metrics.values.toSeq)
  }

  /** The dataset and what was skipped (`skipped n of m files ...`), or "not listed yet" while a query's execution starts. */
  private def skipping: Option[(String, String)] = index.map { index =>
    index.datasetRoot -> SkippingScanExec.listed(child, index, sparkContext).fold("not listed yet")(SkippingScanExec.describe)
  }

  override def simpleString(maxFields: Int): String =
    skipping.fold(nodeName) { case (root, skipped) => s"$nodeName $root: $skipped" }

  // EXPLAIN FORMATTED prints each node's details under its id, as Spark's own nodes do
  override def verboseStringWithOperatorId(): String =
    skipping.fold(s"\n$formattedNodeName\n") { case (root, skipped) =>
      s"\n$formattedNodeName\nDataset: $root\nSkipping: $skipped\n"
    }

  override protected def withNewChildInternal(newChild: SparkPlan): SparkPlan = copy(child = newChild)
}

object SkippingScanExec {
  /**
   * The wrapper that lists a scan's files: a file scan's relation's, or, for an Iceberg scan
   * Skipstone narrowed, the listing that narrowed it (made when the plan was made).
   */
  def index(scan: SparkPlan): Option[SkippingFileIndex] = scan match {
    case s: FileSourceScanExec => s.relation.location match {
      case index: SkippingFileIndex => Some(index)
      case _ => None
    }
    case other => IcebergScanSkipping.index(other)
  }

  /**
   * The scan's listing, or, when a plan is being explained rather than run (`df.explain()`
   * outside any query's execution, or SQL's `EXPLAIN`), a listing made now as the query would
   * make it (on the driver, reading no data). A query's execution never lists here: the scan
   * lists once, when it runs, and the plan shown in the UI at its start says "not listed yet".
   */
  private def listed(scan: SparkPlan, index: SkippingFileIndex, sc: SparkContext): Option[ListingStats] =
    index.lastStats.orElse(scan match {
      case scan: FileSourceScanExec if Explaining.now(sc) =>
        // what the scan lists before the query runs: no runtime (subquery) filters
        def static(filters: Seq[Expression]) = filters.filterNot(_.exists(_.isInstanceOf[PlanExpression[_]]))
        index.listFiles(static(scan.partitionFilters), static(scan.dataFilters))
        index.lastStats
      case _ => None
    })

  def describe(stats: ListingStats): String = {
    val byIndex = stats.skippedByIndex.collect { case (ix, n) if n > 0 => s"$ix: $n" }
    stats.describe +
      (if (byIndex.isEmpty) "" else byIndex.mkString("; files only this index ruled out: ", ", ", "")) +
      (if (stats.unanswered.isEmpty) "" else stats.unanswered.mkString("; not used for skipping: ", ", ", ""))
  }

  /** Puts the node above every file scan whose relation Skipstone wrapped, and every Iceberg scan it narrowed (once). */
  object Insert extends Rule[SparkPlan] {
    override def apply(plan: SparkPlan): SparkPlan = plan match {
      case above: SkippingScanExec => above
      case scan if scan.isInstanceOf[LeafExecNode] && index(scan).isDefined => SkippingScanExec(scan)
      case other => other.mapChildren(apply)
    }
  }

  /**
   * Before Spark inserts row/columnar transitions: every plan and query stage passes here,
   * adaptive or not ([[Insert]] is also a post-planner rule, so that the initial plan of an
   * adaptive query, which `df.explain()` shows before it runs, has the node too). Delta and
   * Iceberg scans are wrapped or narrowed here too (see [[DeltaScanSkipping]],
   * [[IcebergScanSkipping]]), then get the node.
   */
  final case class Columnar(session: SparkSession) extends ColumnarRule {
    private val deltaScans = DeltaScanSkipping(session)
    private val icebergScans = IcebergScanSkipping(session)

    override def preColumnarTransitions: Rule[SparkPlan] = new Rule[SparkPlan] {
      override def apply(plan: SparkPlan): SparkPlan = Insert(icebergScans(deltaScans(plan)))
    }
  }
}

/**
 * Whether the scan being printed is explained rather than run: SQL's `EXPLAIN` marks the
 * thread while it renders; otherwise a plan printed outside any SQL execution is an explain.
 */
object Explaining {
  private val marked = ThreadLocal.withInitial[java.lang.Boolean](() => false)

  def apply[T](body: => T): T = {
    val before = marked.get
    marked.set(true)
    try body finally marked.set(before)
  }

  def now(sc: SparkContext): Boolean = marked.get || sc.getLocalProperty(SQLExecution.EXECUTION_ID_KEY) == null
}
