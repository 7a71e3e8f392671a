package io.skipstone.table

import java.util.{Collections, WeakHashMap}

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}
import org.apache.spark.sql.util.QueryExecutionListener

import io.skipstone.query.{FileScans, SkippingFileIndex}

/**
 * Logs every successful query's scans of managed tables. Spark calls it on its listener bus
 * thread after the query has returned, so the query never waits for it.
 */
class WorkloadListener(session: SparkSession) extends QueryExecutionListener {
  private lazy val conf = session.sessionState.newHadoopConf()

  override def onSuccess(funcName: String, qe: QueryExecution, durationNs: Long): Unit =
    if (WorkloadListener.sessionLogs(qe.sparkSession)) log(qe, durationNs)

  private def log(qe: QueryExecution, durationNs: Long): Unit = {
    val now = System.currentTimeMillis()
    val app = session.sparkContext.applicationId
    val logged = WorkloadListener.tableScans(qe.executedPlan).filter { case (m, _, _, _) => WorkloadListener.tableLogs(m.snapshot) }
    logged.foreach { case (manifest, condition, stats, columns) =>
      val files = manifest.snapshot.files
      val (filesRead, bytesRead) = stats.fold((files.size.toLong, manifest.snapshot.totalBytes)) { s =>
        (s.filesTotal - s.filesSkipped, s.bytesTotal - s.bytesSkipped)
      }
      WorkloadLog.record(conf, WorkloadRecord(manifest.root, now, manifest.snapshot.version,
        condition.flatMap(PredicateJson(_)), filesRead, files.size.toLong, bytesRead, manifest.snapshot.totalBytes,
        durationNs / 1e6, app, ReadShare.of(conf, manifest.root, manifest.snapshot, columns)))
    }
  }

  override def onFailure(funcName: String, qe: QueryExecution, exception: Exception): Unit = ()
}

object WorkloadListener {
  /** Session switch: `false` logs no query of this session, on any table. */
  val EnabledConf = "spark.skipstone.workloadLog.enabled"

  def sessionLogs(session: SparkSession): Boolean =
    !session.conf.getOption(EnabledConf).exists(_.trim.equalsIgnoreCase("false"))

  /**
   * The table's `workloadLog.enabled`, read by the settings' parser. A value it refuses can only
   * predate the validator; this runs on the listener thread, where an error would be lost, so
   * such a table logs (the default).
   */
  def tableLogs(snapshot: Snapshot): Boolean =
    scala.util.Try(TableSettings.WorkloadLogEnabled.read(snapshot.properties, "")).getOrElse(true)

  private val registered = Collections.synchronizedMap(new WeakHashMap[SparkSession, java.lang.Boolean]())

  def ensureRegistered(session: SparkSession): Unit =
    if (registered.putIfAbsent(session, true) == null) session.listenerManager.register(new WorkloadListener(session))

  /** A scan of a managed table: its listing, the filter it skipped with, what it skipped, the columns it read. */
  type Scan = (ManifestFileIndex, Option[org.apache.spark.sql.catalyst.expressions.Expression],
    Option[io.skipstone.query.ListingStats], Seq[String])

  /** Each distinct scan of a managed table in a physical plan, through adaptive stages and subqueries. */
  def tableScans(plan: SparkPlan): Seq[Scan] = FileScans.scans(plan).collect {
    case (m: ManifestFileIndex, columns) => (m, None, None, columns)
    case (s: SkippingFileIndex, columns) if s.delegate.isInstanceOf[ManifestFileIndex] =>
      (s.delegate.asInstanceOf[ManifestFileIndex], Some(s.condition), s.lastStats, columns)
  }
}
