package io.skipstone.metadata

import java.util.Locale

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.types.{DataType, StructType}
import org.json4s._
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import io.skipstone.encryption.EncryptionConf

/**
 * Where a dataset is and how its files are read: what a build records so that a refresh, from
 * any session, reads new files exactly as the build read the others.
 *
 * @param root    the dataset's directory (qualified URI), the key of its metadata
 * @param format  the reader format (`parquet`, `csv`, ...)
 * @param options reader options, without those that say where files are
 * @param table   the catalog table read, if any
 * @param schema  the schema the files were read with (a user schema, or the inferred one)
 * @param tableVersion for a table whose own metadata lists its files (format `delta` or `iceberg`),
 *                     the snapshot built from (Delta's version, Iceberg's snapshot id)
 */
case class BuildSource(root: String, format: String, options: Map[String, String], table: Option[String],
                       schema: Option[StructType], tableVersion: Option[Long] = None) {
  /** The dataset's name in messages. */
  def name: String = table.getOrElse(root)

  /**
   * A Delta Lake or Iceberg table: its files are those its metadata lists, and a read takes no
   * schema (the table's metadata has it).
   */
  def isTableFormat: Boolean = BuildSource.TableFormats(format)

  /** The whole dataset, or just `files` of it (with Hive-style partition columns kept). */
  def read(session: SparkSession, files: Option[Seq[String]] = None): DataFrame = (table, files) match {
    case (Some(t), None) => session.table(t)
    case (_, None) => reader(session, schema).load(root)
    case (_, Some(paths)) =>
      // basePath keeps Hive-style partition columns when reading a subset of the files.
      reader(session, Some(read(session).schema)).option("basePath", root).load(paths: _*)
  }

  private def reader(session: SparkSession, withSchema: Option[StructType]) = {
    val r = session.read.format(format).options(options)
    if (isTableFormat) r else withSchema.fold(r)(r.schema)
  }

  def toJson: JValue =
    ("format" -> format) ~ ("options" -> options) ~ ("table" -> table) ~
      ("schema" -> schema.map(s => JsonMethods.parse(s.json))) ~ ("tableVersion" -> tableVersion)
}

object BuildSource {
  /** Reader options that say where files are, not how to read them; re-reads pass paths themselves. */
  private val LocationOptions = Set("path", "paths", "basepath")
  /** A table format build's snapshot is recorded apart ([[tableVersion]]); a refresh reads the newest. */
  private val VersionOptions = Set("versionasof", "timestampasof", "snapshot-id", "as-of-timestamp", "branch", "tag",
    "start-snapshot-id", "end-snapshot-id", "start-timestamp", "end-timestamp")

  val DeltaFormat = "delta"
  val IcebergFormat = "iceberg"
  /** Formats of tables whose own metadata lists their files (TableFormats, in the sources package). */
  val TableFormats: Set[String] = Set(DeltaFormat, IcebergFormat)

  def apply(root: String, format: String, options: Map[String, String], table: Option[String],
            schema: Option[StructType], tableVersion: Option[Long] = None): BuildSource =
    new BuildSource(root, format, options.filter { case (k, _) =>
      val key = k.toLowerCase(Locale.ROOT)
      // encryption settings are the reading session's (they may hold credentials), never the dataset's
      !LocationOptions(key) && !(TableFormats(format) && VersionOptions(key)) && !EncryptionConf.isCryptoSetting(key)
    }, table, schema, tableVersion)

  /** The `read` record of index.json for the dataset at `root`. */
  def fromJson(root: String, json: JValue): BuildSource = {
    implicit val formats: Formats = DefaultFormats
    BuildSource(root, (json \ "format").extract[String],
      (json \ "options").extractOpt[Map[String, String]].getOrElse(Map.empty),
      (json \ "table").extractOpt[String],
      (json \ "schema").toOption.filter(_ != JNull).map(s => DataType.fromJson(JsonMethods.compact(s)).asInstanceOf[StructType]),
      (json \ "tableVersion").extractOpt[Long])
  }
}
