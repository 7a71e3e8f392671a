package io.skipstone.query

import java.util.{Collections, WeakHashMap}

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.QueryExecution
import org.apache.spark.sql.util.QueryExecutionListener

/** Skipping statistics of one executed query, summed over its indexed datasets. */
case class QueryStats(perDataset: Seq[ListingStats]) {
  def filesTotal: Long = perDataset.map(_.filesTotal).sum
  def filesSkipped: Long = perDataset.map(_.filesSkipped).sum
  def bytesTotal: Long = perDataset.map(_.bytesTotal).sum
  def bytesSkipped: Long = perDataset.map(_.bytesSkipped).sum
}

/**
 * Records, after each successful query of a session that reads files, what its Skipstone file
 * indexes skipped (nothing, for files without an index).
 * Spark calls listeners on its listener bus thread; readers wait for the bus to drain first.
 */
class QueryStatsListener extends QueryExecutionListener {
  override def onSuccess(funcName: String, qe: QueryExecution, durationNs: Long): Unit = {
    // Only queries that read files count: showing a result (`SHOW SKIPPING STATS`, a collected
    // command result, `SELECT 1`) must not hide what the last real query skipped.
    if (FileScans.readsFiles(qe.executedPlan)) {
      val indexes = FileScans.locations(qe.executedPlan).collect { case s: SkippingFileIndex => s }
      QueryStatsListener.last.put(qe.sparkSession, QueryStats(indexes.flatMap(_.lastStats)))
    }
  }
  override def onFailure(funcName: String, qe: QueryExecution, exception: Exception): Unit = ()
}

object QueryStatsListener {
  // Weak keys: stats must not keep a stopped session alive.
  private val last = Collections.synchronizedMap(new WeakHashMap[SparkSession, QueryStats]())
  private val registered = Collections.synchronizedMap(new WeakHashMap[SparkSession, java.lang.Boolean]())

  def lastStats(session: SparkSession): Option[QueryStats] = Option(last.get(session))

  /** Idempotent; cheap enough to call on every planning of a query. */
  def ensureRegistered(session: SparkSession): Unit =
    if (registered.putIfAbsent(session, true) == null) session.listenerManager.register(new QueryStatsListener)

  /** Every distinct wrapper a physical plan scans, through adaptive stages and subqueries. */
  def skippingIndexes(plan: SparkPlan): Seq[SkippingFileIndex] =
    FileScans.locations(plan).collect { case s: SkippingFileIndex => s }
}
