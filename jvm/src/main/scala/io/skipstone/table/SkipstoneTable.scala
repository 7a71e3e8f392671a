package io.skipstone.table

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import io.skipstone.metadata.MetadataStore

/**
 * A managed table, as its users hold it (Delta Lake's `DeltaTable` is the model). The handle
 * keeps nothing but where the table is: every call reads the table's log afresh, so two
 * handles, or a handle and SQL, never disagree about the newest version; every write goes
 * through [[TableTransaction]]. Python's `ManagedTable` is a thin handle over one of these.
 *
 * {{{
 *   import io.skipstone.table.SkipstoneTable
 *
 *   val t = SkipstoneTable.forPath(spark, "/data/events")
 *   t.append(spark.range(1000).selectExpr("id AS a", "id % 7 AS b"))   // AppendResult(2, 1000, 4, None, None)
 *   t.optimize()                                                      // Some(OptimizeResult(3, ..., "compaction", ...))
 *   t.history().select("version", "operation", "strategy").show()
 *   t.read(1L).where("a < 10").count()                                // version 1, as versionAsOf reads it
 *   t.vacuum(168.0, dryRun = true, force = false).show()
 *   t.setProperties(Map("optimize.auto" -> "true"))
 * }}}
 *
 * The `layout` strategy asks a layout policy, and Skipstone's policies are Python: opened from a
 * pyspark session (`python` given), `optimize()` uses its default policy; from Scala, pass a
 * [[LayoutPolicy]] to `optimize(policy)`, or `optimize()` runs `unindexed` and `compaction` only.
 */
final class SkipstoneTable private (session: SparkSession, val root: String, python: Option[PythonDriver])
    extends Logging {

  /** The newest version's log entry. */
  def snapshot: Snapshot = TableLog.latest(conf, root).getOrElse(throw SkipstoneTable.notATable(root))

  /** The newest committed version number. */
  def version: Long = TableLog.latestVersion(conf, root).getOrElse(throw SkipstoneTable.notATable(root))

  /** One row per commit: version, timestamp, operation, benefit, cost, rows and files, strategy, reason... */
  def history(): DataFrame = Tables.history(session, root)

  /** One row per live file of the newest version: path (relative to the root), size, block, rows. */
  def files(): DataFrame = session.createDataFrame(SkipstoneTable.fileRows(snapshot).asJava, SkipstoneTable.FilesSchema)

  /** The queries run on this table, from every session and application that logged them, oldest first. */
  def workload(): DataFrame = Tables.workload(session, root)

  /** One row about the table's newest version, as SQL's `DESCRIBE DETAIL` ([[TableDetail]]). */
  def detail(): DataFrame = TableDetail.frame(session, root, None)

  /** The newest version's rows, as `spark.read.parquet(root)` reads them. */
  def read(): DataFrame = session.read.parquet(root)
  /** Exactly version `version`'s rows (`versionAsOf`); a version a vacuum removed fails when read, naming those left. */
  def read(version: Long): DataFrame = session.read.option("versionAsOf", version.toString).parquet(root)
  /** The rows of the newest version committed at or before `timestamp` (`timestampAsOf`, the session's time zone). */
  def read(timestamp: String): DataFrame = session.read.option("timestampAsOf", timestamp).parquet(root)

  /**
   * Adds `rows` (the table's columns, in any order), routed through the current layout into new
   * files of their blocks ([[Append]]). With the property `optimize.auto`, one [[optimize]]
   * iteration runs after the commit; its failure does not undo the append, which is committed:
   * it is in `optimizeError` (retrying the append would add its rows twice).
   */
  def append(rows: DataFrame): AppendResult = {
    val appended = Append.run(session, root, rows, roles())
    try {
      if (!TableSettings.of(snapshot.properties, root).auto) appended else appended.copy(optimize = optimize())
    } catch {
      case e: InjectedFailure => throw e // a test's kill: nothing runs that a kill would not run
      case NonFatal(e) =>
        val reason = Option(e.getMessage).getOrElse(e.getClass.getSimpleName)
        // a Python driver warns in Python, where its user looks
        if (python.isEmpty) logWarning(s"Skipstone: the append to $root committed version ${appended.version} " +
          s"(${appended.rows} rows); the automatic optimize after it failed: $reason")
        appended.copy(optimizeError = Some(reason))
    }
  }

  /**
   * One iteration of continuous optimization ([[OptimizeIteration]]) with the default layout
   * policy (Python's, when opened from pyspark; else the `layout` strategy is skipped): what it
   * committed, or None when no strategy selected anything.
   */
  def optimize(): Option[OptimizeResult] = iterate(python.map(PythonPolicy.asLayoutPolicy))

  /** [[optimize]] whose `layout` strategy asks `policy`. */
  def optimize(policy: LayoutPolicy): Option[OptimizeResult] = iterate(Some(policy))

  /** [[vacuum]] at the table's retention (`vacuum.retentionHours`). */
  def vacuum(): DataFrame = vacuum(retentionHours, dryRun = false, force = false)

  /**
   * Deletes the files no version within the retention needs ([[Vacuum]]): one row per path
   * deleted (or, with `dryRun`, that would be): path, kind, size. A retention under the table's
   * is refused unless `force`.
   */
  def vacuum(retentionHours: Double, dryRun: Boolean, force: Boolean): DataFrame =
    Vacuum.run(session, root, retentionHours, dryRun, force)

  /** The table's vacuum retention in hours. */
  def retentionHours: Double = Vacuum.retentionHours(session, root)

  /** The newest version's properties, with each setting's default where it was never set. */
  def properties(): Map[String, String] = TableSettings.Defaults ++ snapshot.properties

  /**
   * Commits new values for `properties` (other keys keep theirs), checked against the table's
   * settings first: a refused key or value commits nothing.
   */
  def setProperties(properties: Map[String, String]): Unit = Tables.setProperties(session, root, properties, root)
  def setProperties(properties: java.util.Map[String, String]): Unit = setProperties(properties.asScala.toMap)

  override def toString: String = s"SkipstoneTable($root)"

  private def conf = session.sessionState.newHadoopConf()

  private def roles(): Option[PythonRoles] = python.flatMap(p => Option(p.roles(session, root)))

  private def iterate(policy: Option[LayoutPolicy]): Option[OptimizeResult] = {
    val outcome = OptimizeIteration.run(session, root, policy, roles())
    if (outcome.needPython.nonEmpty) logInfo(s"Skipstone: optimize of $root skipped, as no layout policy was given: " +
      outcome.needPython.mkString("; "))
    outcome.committed
  }
}

object SkipstoneTable {
  /** Field by field, not parsed from DDL, as [[Tables.HistorySchema]]: the command line reads it without a session. */
  val FilesSchema: StructType = new StructType().add("path", StringType).add("size", LongType).add("block", LongType)
    .add("rows", LongType)

  /** The rows of [[files]]: one per live file of `snapshot`. */
  def fileRows(snapshot: Snapshot): Seq[Row] = snapshot.files.map(f => Row(f.path, f.size, f.block, f.rows))

  /** The managed table at `path`, or an error when it is none. */
  def forPath(session: SparkSession, path: String): SkipstoneTable = open(session, path, None)

  /** As [[forPath]], from a pyspark session: `python` computes index roles and is the default layout policy. */
  def forPath(session: SparkSession, path: String, python: PythonDriver): SkipstoneTable =
    open(session, path, Option(python))

  private def open(session: SparkSession, path: String, python: Option[PythonDriver]): SkipstoneTable = {
    val root = MetadataStore.qualify(session, path)
    if (!Tables.isManaged(session, root)) throw notATable(root)
    new SkipstoneTable(session, root, python)
  }

  private def notATable(root: String) = new IllegalArgumentException(
    s"$root is not a Skipstone table (no log under ${TableLog.logDir(root)})")
}
