package io.skipstone.metadata

import org.json4s._
import org.json4s.jackson.JsonMethods

import org.apache.spark.sql.types.DataType

import io.skipstone.clauses.ColumnPath

/**
 * One index over one column (or several, for multi-column kinds), as stored with the metadata.
 *
 * @param kind            the index type's name, e.g. "minmax"
 * @param columns         dataset columns it summarises, as the user named them (for messages)
 * @param columnTypes     their types when indexed: a query over a different type ignores the index
 * @param metadataColumns role ("min", "max", "nulls", ...) to the metadata table's column name
 * @param params          kind-specific settings, kept as strings so any session can read them
 */
case class IndexSpec(
    kind: String,
    columns: Seq[String],
    columnTypes: Seq[DataType],
    metadataColumns: Map[String, String],
    params: Map[String, String],
    displayName: Option[String] = None,
    storedPaths: Option[Seq[ColumnPath]] = None) {
  /** The exact columns, resolved against the schema when the index was built. */
  val paths: Seq[ColumnPath] = storedPaths.getOrElse(columns.map(ColumnPath.fromDotted))

  /** As the user wrote it, e.g. `MinMax(temp)`. */
  def describe: String = displayName.getOrElse(s"$kind(${columns.mkString(", ")})")
}

/** Everything a session needs to use a dataset's metadata, stored as `index.json` per version. */
case class DatasetIndex(formatVersion: Int, datasetRoot: String, format: String, indexes: Seq[IndexSpec],
                        reader: ReaderSpec)

object DatasetIndex {
  val CurrentFormatVersion = 1
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
        metadataColumns = (ix \ "metadataColumns").extract[Map[String, String]],
        params = (ix \ "params").extractOpt[Map[String, String]].getOrElse(Map.empty),
        displayName = (ix \ "name").extractOpt[String],
        storedPaths = (ix \ "columnPaths").extractOpt[Seq[Seq[String]]].map(_.map(ColumnPath(_))))
    }
    val format = (json \ "format").extract[String]
    val reader = (json \ "reader").toOption.filter(_ != JNull).map(ReaderSpec.fromJson).getOrElse(ReaderSpec.legacy(format))
    DatasetIndex(version, (json \ "datasetRoot").extract[String], format, indexes, reader)
  }
}
