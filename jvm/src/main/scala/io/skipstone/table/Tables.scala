package io.skipstone.table

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types._
import org.json4s._
import org.json4s.jackson.JsonMethods

/**
 * The JVM entry points of managed tables that the Python API calls. The log's format lives
 * here (see docs/table-format.md); Python hands over changes and reads snapshots as JSON.
 */
object Tables {
  private implicit val formats: Formats = DefaultFormats

  def isManaged(session: SparkSession, root: String): Boolean =
    TableLog.latestVersion(session.sessionState.newHadoopConf(), root).isDefined

  /** The newest version's log entry (JSON), or null when `root` is no managed table. */
  def latest(session: SparkSession, root: String): String =
    TableLog.latest(session.sessionState.newHadoopConf(), root).map(SnapshotJson.write).orNull

  def snapshot(session: SparkSession, root: String, version: Long): String =
    SnapshotJson.write(TableLog.read(session.sessionState.newHadoopConf(), root, version))

  /** Commits a change (JSON, see [[SnapshotJson.readChange]]) made against `readVersion`; the new entry. */
  def commit(session: SparkSession, root: String, readVersion: Long, changeJson: String): String =
    SnapshotJson.write(commit(session, root, readVersion, SnapshotJson.readChange(changeJson)))

  /**
   * [[commit]] for the JVM's own operations: the change as data, the new snapshot. Every commit
   * passes here, so here its properties meet the settings' validator ([[TableSettings.checkChange]]);
   * `table` is how errors name the table (SQL names it as the statement did).
   */
  def commit(session: SparkSession, root: String, readVersion: Long, change: TableChange, table: String): Snapshot =
    try {
      val conf = session.sessionState.newHadoopConf()
      unchangedAbsorbed(conf, root, change)
      if (change.properties.nonEmpty)
        TableSettings.checkChange(table, TableLog.latest(conf, root).fold(Map.empty[String, String])(_.properties),
          change.properties, byUser = change.operation == TableSettings.SetOperation)
      TableLog.commit(conf, root, readVersion, change)
    } finally ManagedTables.invalidate(root)

  def commit(session: SparkSession, root: String, readVersion: Long, change: TableChange): Snapshot =
    commit(session, root, readVersion, change, root)

  /**
   * Commits new values for table properties (other keys keep theirs): SQL's
   * `ALTER TABLE ... SET TBLPROPERTIES` and Python's `set_properties`. Refused values and keys
   * commit nothing; `table` names the table in the error.
   */
  def setProperties(session: SparkSession, root: String, properties: Map[String, String], table: String): Snapshot = {
    val readVersion = TableLog.latestVersion(session.sessionState.newHadoopConf(), root).getOrElse(
      throw new IllegalArgumentException(s"$table is not a Skipstone table (no log under $root/${TableLog.ContainerDir}/log)"))
    val info = JObject("properties" -> JObject(properties.toList.sortBy(_._1).map { case (k, v) => k -> JString(v) }))
    commit(session, root, readVersion, TableChange(TableSettings.SetOperation, Nil, Set.empty, None, None, properties,
      info), table)
  }

  /** [[setProperties]] for Python: the properties as a JSON object, the new log entry as JSON. */
  def setProperties(session: SparkSession, root: String, propertiesJson: String): String =
    SnapshotJson.write(setProperties(session, root, JsonMethods.parse(propertiesJson).extract[Map[String, String]], root))

  /**
   * An absorbed file must still hold the bytes whose rows the change carries: if its writer
   * replaced or removed it meanwhile, recording it would hide rows nobody read (or re-read rows).
   */
  private def unchangedAbsorbed(conf: org.apache.hadoop.conf.Configuration, root: String, change: TableChange): Unit =
    change.absorbed.foreach { a =>
      val path = new org.apache.hadoop.fs.Path(root + "/" + a.path)
      val now = scala.util.Try(path.getFileSystem(conf).getFileStatus(path)).toOption
      if (!now.exists(a.matches)) throw new ConcurrentTableChange(
        s"$root: another writer replaced or removed its file ${a.path} while this ${change.operation} absorbed it; " +
          s"this ${change.operation} was not committed (run it again: the new file is unindexed table data)",
        Some(Conflict.AbsorbedFileChanged))
    }

  /** The files other writers dropped into the root, oldest first: path (absolute), size, modification_time (ms). */
  def unindexed(session: SparkSession, root: String): DataFrame = {
    val conf = session.sessionState.newHadoopConf()
    val rows = TableLog.latest(conf, root).toSeq.flatMap(UnindexedFiles.list(conf, root, _))
      .map(s => Row(s.getPath.toString, s.getLen, s.getModificationTime))
    session.createDataFrame(rows.asJava, StructType.fromDDL("path STRING, size LONG, modification_time LONG"))
  }

  /**
   * The logged predicates, oldest first, as a JSON array of `[predicate JSON, version read, read share,
   * files read, bytes read, duration ms]` (each of the last four null when the log has none): what an
   * optimizer plans and learns its prices from, without a Spark job (one per call cost a second under load).
   */
  def loggedPredicatesJson(session: SparkSession, root: String): String =
    JsonMethods.compact(JsonMethods.render(loggedArray(session, root, None)._1))

  /**
   * The logged predicates after `cursorJson` (the `cursor` of an earlier answer; empty: from the
   * start), as a JSON object: `whole` (true when they are the whole log: no cursor, or it no longer
   * holds, e.g. the log was compacted), `records` (as [[loggedPredicatesJson]]'s) and `cursor`, to
   * ask from next time. An optimizer keeping what it read pays for the new queries only.
   */
  def loggedPredicatesAfterJson(session: SparkSession, root: String, cursorJson: String): String = {
    val (records, whole, cursor) = loggedArray(session, root, LogCursor.fromJson(cursorJson))
    JsonMethods.compact(JsonMethods.render(JObject("whole" -> JBool(whole), "records" -> records,
      "cursor" -> JString(JsonMethods.compact(JsonMethods.render(cursor.toJson))))))
  }

  private def loggedArray(session: SparkSession, root: String, from: Option[LogCursor]): (JArray, Boolean, LogCursor) = {
    flushWorkload(session)
    val (whole, rows, cursor) = WorkloadLogReader.after(session, root, from)
    def long(r: Row, i: Int): JValue = if (r.isNullAt(i)) JNull else JInt(r.getLong(i))
    def double(r: Row, i: Int): JValue = if (r.isNullAt(i)) JNull else JDouble(r.getDouble(i))
    val records = rows.map(r => JArray(List(JString(r.getString(2)), JInt(r.getLong(1)), double(r, 9),
      long(r, 3), long(r, 5), double(r, 7))))
    (JArray(records.toList), whole, cursor)
  }

  /** Each retained commit's version, operation and commit info, oldest first, as a JSON array of
   * `[version, operation, info]` (the part of [[history]] a policy reads, without a Spark job). */
  def commitInfosJson(session: SparkSession, root: String): String = {
    val conf = session.sessionState.newHadoopConf()
    val commits = TableLog.versions(conf, root).map(TableLog.read(conf, root, _))
      .map(s => JArray(List(JInt(s.version), JString(s.operation), s.commitInfo)))
    JsonMethods.compact(JsonMethods.render(JArray(commits.toList)))
  }

  /**
   * The columns of [[history]] (Python's `t.history()`, SQL's `DESCRIBE HISTORY`). Built field by
   * field, not parsed from DDL: the command line reads history without a session, and the SQL
   * parser would start half of Spark (its logging, its local host lookup) to build it.
   */
  val HistorySchema: StructType = new StructType().add("version", LongType).add("timestamp", TimestampType)
    .add("operation", StringType).add("benefit", DoubleType).add("cost", DoubleType).add("rows_rewritten", LongType)
    .add("files_added", LongType).add("files_removed", LongType).add("files", LongType).add("rows", LongType)
    .add("policy", StringType).add("commit_info", StringType).add("strategy", StringType).add("reason", StringType)
    .add("bytes_read", LongType).add("duration_ms", DoubleType)

  def history(session: SparkSession, root: String): DataFrame =
    session.createDataFrame(historyRows(session.sessionState.newHadoopConf(), root).asJava, HistorySchema)

  /** The rows of [[history]], oldest first, read with `conf` alone (the command line's, without a session). */
  def historyRows(conf: org.apache.hadoop.conf.Configuration, root: String): Seq[Row] =
    TableLog.versions(conf, root).map(TableLog.read(conf, root, _)).map { s =>
      val info = s.commitInfo
      def double(k: String) = (info \ k).extractOpt[Double].map(Double.box).orNull
      def long(k: String) = (info \ k).extractOpt[Long].map(Long.box).orNull
      Row(s.version, new java.sql.Timestamp(s.timestampMillis), s.operation, double("benefit"), double("cost"),
        long("rowsRewritten"), long("filesAdded"), long("filesRemoved"), s.files.size.toLong, s.totalRows,
        (info \ "policy").extractOpt[String].orNull, JsonMethods.compact(JsonMethods.render(info)),
        (info \ "strategy").extractOpt[String].orNull, (info \ "reason").extractOpt[String].orNull,
        long("bytesRead"), double("durationMs"))
    }

  /** Waits until every query that finished so far is in the workload log. */
  def flushWorkload(session: SparkSession): Unit = {
    val sc = session.sparkContext
    val bus = sc.getClass.getMethod("listenerBus").invoke(sc)
    bus.getClass.getMethod("waitUntilEmpty").invoke(bus)
    WorkloadLog.flush()
  }

  /** The table's workload log, every session's and application's, oldest first. */
  def workload(session: SparkSession, root: String): DataFrame = {
    flushWorkload(session)
    WorkloadLogReader.frame(session, root).selectExpr("timestamp_millis(time) AS time", "version", "predicate", "files_read", "files_total",
      "bytes_read", "bytes_total", "duration_ms", "application", "read_share").orderBy("time")
  }
}
