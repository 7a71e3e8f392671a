package io.skipstone.metadata

import scala.collection.immutable.ListMap

import org.json4s._
import org.json4s.jackson.JsonMethods

import org.apache.spark.sql.types.DataType

/**
 * One index over one column (or several, for multi-column kinds), as stored with the metadata.
 *
 * @param kind            the index type's name, e.g. "minmax"
 * @param columns         dataset columns it summarises, as the user named them (for messages)
 * @param columnTypes     their types when indexed: a query over a different type ignores the index
 * @param metadataColumns role ("min", "max", "nulls", ...) to the metadata table's column name
 * @param params          kind-specific settings, kept as strings so any session can read them
 * @param key             the id of the key its metadata columns are encrypted with (None: they
 *                        are under the dataset's footer key if it has one, else plaintext)
 */
case class IndexSpec(
    kind: String,
    columns: Seq[String],
    columnTypes: Seq[DataType],
    metadataColumns: Map[String, String],
    params: Map[String, String],
    displayName: Option[String] = None,
    storedPaths: Option[Seq[ColumnPath]] = None,
    key: Option[String] = None) {
  /** The exact columns, resolved against the schema when the index was built. */
  val paths: Seq[ColumnPath] = storedPaths.getOrElse(columns.map(ColumnPath.fromDotted))

  /** As the user wrote it, e.g. `MinMax(temp)`. */
  def describe: String = displayName.getOrElse(s"$kind(${columns.mkString(", ")})")

  /** This index's entry of index.json (see docs/index-format.md); maps keep their order. */
  def toJson: JValue = JObject(List[JField](
    "kind" -> JString(kind),
    "name" -> JString(describe),
    "columns" -> JArray(columns.map(JString(_)).toList),
    "params" -> JObject(params.toList.map { case (k, v) => k -> JString(v) }),
    "columnPaths" -> JArray(paths.map(p => JArray(p.parts.map(JString(_)).toList)).toList),
    "columnTypes" -> JArray(columnTypes.map(t => JsonMethods.parse(t.json)).toList),
    "metadataColumns" -> JObject(metadataColumns.toList.map { case (k, v) => k -> JString(v) })) ++
    key.map(k => "key" -> JString(k)))
}

/**
 * Everything a session needs to use a dataset's metadata, stored as `index.json` per version.
 * This file is the only writer ([[toJson]]) and reader ([[DatasetIndex.fromJson]]) of that
 * format; docs/index-format.md is its spec.
 *
 * @param context what decided the values the build read (None in metadata written before it
 *                was recorded: such metadata answers nothing until it is refreshed)
 * @param read    how the build read the files, so that a refresh reads new ones the same way
 *                (absent in metadata written before it was recorded)
 * @param footerKey the id of the key the metadata table's footer (and every column of no index
 *                  key) is encrypted with; None: the table is plaintext
 * @param where   a partial index's predicate, as the user wrote it (docs/partial-indexes.md):
 *                only files with a row it holds for are indexed; the table's rows of the others
 *                are marked [[DatasetIndex.OutsideWhere]] and such files are always read
 * @param autoRefresh whether, and how far, queries index new files themselves
 */
case class DatasetIndex(formatVersion: Int, datasetRoot: String, format: String, indexes: Seq[IndexSpec],
                        context: Option[ReadContext], read: Option[BuildSource] = None,
                        footerKey: Option[String] = None, where: Option[String] = None,
                        autoRefresh: Option[AutoRefresh] = None) {
  /** Whether the metadata table is encrypted (an encrypted footer, see [[io.skipstone.encryption.EncryptionConf]]). */
  def isEncrypted: Boolean = footerKey.isDefined

  /** Every key id the version's table is encrypted with, the footer key first. */
  def keyIds: Seq[String] = (footerKey.toSeq ++ indexes.flatMap(_.key)).distinct

  def toJson: String = JsonMethods.compact(JsonMethods.render(JObject(List[JField](
    "formatVersion" -> JInt(formatVersion),
    "datasetRoot" -> JString(datasetRoot),
    "format" -> JString(format),
    "reader" -> context.map(_.toJson).getOrElse(JNull),
    "read" -> read.map(_.toJson).getOrElse(JNull),
    "indexes" -> JArray(indexes.map(_.toJson).toList)) ++
    footerKey.map(k => "encryption" -> JObject("footerKey" -> JString(k))) ++
    where.map(w => "where" -> JString(w)) ++
    autoRefresh.map(r => "autoRefresh" -> r.toJson))))
}

object DatasetIndex {
  /** Version 2 adds partial indexes, whose rows of files outside the WHERE an earlier reader must not use. */
  val CurrentFormatVersion = 2

  /**
   * The format version a definition is written with: the oldest that readers need, so that
   * Skipstones from before partial indexes keep reading every other index (and refuse, hence
   * read every file of, a partial one).
   */
  def formatVersionFor(where: Option[String]): Int = if (where.isDefined) 2 else 1

  /** The metadata column of a partial index marking files with no row its WHERE holds for. */
  val OutsideWhere = "outside_where"
  private implicit val formats: Formats = DefaultFormats

  def fromJson(text: String): DatasetIndex = {
    val json = JsonMethods.parse(text)
    val version = (json \ "formatVersion").extract[Int]
    require(version <= CurrentFormatVersion,
      s"index.json has format version $version; this Skipstone reads up to $CurrentFormatVersion")
    val indexes = (json \ "indexes").children.map { ix =>
      IndexSpec(
        kind = (ix \ "kind").extract[String],
        columns = (ix \ "columns").extract[Seq[String]],
        columnTypes = (ix \ "columnTypes").children.map(t => DataType.fromJson(JsonMethods.compact(t))),
        metadataColumns = ordered(ix \ "metadataColumns"),
        params = ordered(ix \ "params"),
        displayName = (ix \ "name").extractOpt[String],
        storedPaths = (ix \ "columnPaths").extractOpt[Seq[Seq[String]]].map(_.map(ColumnPath(_))),
        key = (ix \ "key").extractOpt[String])
    }
    val format = (json \ "format").extract[String]
    val context = (json \ "reader").toOption.filter(_ != JNull).flatMap(ReadContext.fromJson)
    val root = (json \ "datasetRoot").extract[String]
    val read = (json \ "read").toOption.filter(_ != JNull).map(BuildSource.fromJson(root, _))
    DatasetIndex(version, root, format, indexes, context, read, (json \ "encryption" \ "footerKey").extractOpt[String],
      (json \ "where").extractOpt[String], AutoRefresh.fromJson(json \ "autoRefresh"))
  }

  /** A JSON object of strings as a map that keeps the written order (roles are listed in it). */
  private def ordered(json: JValue): Map[String, String] = json match {
    case JObject(fields) => ListMap.from(fields.collect { case (k, JString(v)) => k -> v })
    case _ => ListMap.empty
  }
}
