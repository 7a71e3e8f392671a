package io.skipstone.table

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types._
import org.json4s._
import org.json4s.jackson.JsonMethods

/**
 * One row about a managed table (SQL's `DESCRIBE DETAIL`, `t.detail()`), with the columns of
 * Delta Lake's `DESCRIBE DETAIL` that mean something here (so tools reading `numFiles` or
 * `sizeInBytes` work unchanged), plus the layout the table is written under.
 */
object TableDetail {
  val Format = "skipstone"

  /** Field by field, not parsed from DDL, as [[Tables.HistorySchema]]: the command line reads it without a session. */
  val Schema: StructType = new StructType().add("format", StringType).add("name", StringType)
    .add("location", StringType).add("version", LongType).add("createdAt", TimestampType)
    .add("lastModified", TimestampType).add("numFiles", LongType).add("sizeInBytes", LongType).add("numRows", LongType)
    .add("layout", StringType).add("layoutColumns", ArrayType(StringType))
    .add("properties", MapType(StringType, StringType)).add("metadataVersion", LongType)

  /**
   * Properties as the log records them, less `schema`: that is the table's schema (which
   * `DESCRIBE` on the table shows) as one long JSON string, which would bury the settings.
   */
  private val Hidden = Set("schema")

  /** The row of the table at `root` as its newest version describes it; `name` its catalog name, if any. */
  def row(session: SparkSession, root: String, name: Option[String]): Row =
    row(session.sessionState.newHadoopConf(), root, name)

  def row(conf: org.apache.hadoop.conf.Configuration, root: String, name: Option[String]): Row = {
    val versions = TableLog.versions(conf, root)
    if (versions.isEmpty) throw new IllegalArgumentException(s"$root is not a Skipstone table (no log under " +
      s"${TableLog.logDir(root)})")
    // the first entry is the create: its time is when the table was created, as Delta's createdAt
    val first = TableLog.read(conf, root, versions.head)
    val latest = if (versions.size == 1) first else TableLog.read(conf, root, versions.last)
    val (kind, columns) = layoutOf(latest)
    Row(Format, name.orNull, root, latest.version, new java.sql.Timestamp(first.timestampMillis),
      new java.sql.Timestamp(latest.timestampMillis), latest.files.size.toLong, latest.totalBytes, latest.totalRows,
      kind.orNull, columns, latest.properties -- Hidden, latest.metadataVersion.map(Long.box).orNull)
  }

  def frame(session: SparkSession, root: String, name: Option[String]): DataFrame =
    session.createDataFrame(Seq(row(session, root, name)).asJava, Schema)

  /**
   * The layout `s` was written under: its spec's kind (`ZOrder`, `KdTree`, `Amoeba`, ...) and
   * the columns it orders by; a spec that names none orders by every column of the layout.
   */
  def layoutOf(s: Snapshot): (Option[String], Seq[String]) = {
    implicit val formats: Formats = DefaultFormats
    val spec = s.properties.get("layout.spec").fold(JNothing: JValue)(JsonMethods.parse(_))
    val named = (spec \ "columns").extractOpt[Seq[String]].getOrElse(Nil)
    val all = (s.layout \ "schema").children.flatMap(c => (c \ "name").extractOpt[String])
    ((spec \ "kind").extractOpt[String], if (named.nonEmpty) named else all)
  }
}
