package io.skipstone.metadata

import org.json4s._
import org.json4s.jackson.JsonMethods

/**
 * One index over one column (or several, for multi-column kinds), as stored with the metadata.
 *
 * @param kind            the index type's name, e.g. "minmax"
 * @param columns         dataset columns it summarises; nested fields as dotted paths
 * @param metadataColumns role ("min", "max", "nulls", ...) to the metadata table's column name
 * @param params          kind-specific settings, kept as strings so any session can read them
 */
case class IndexSpec(
    kind: String,
    columns: Seq[String],
    metadataColumns: Map[String, String],
    params: Map[String, String]) {
  def describe: String = s"$kind(${columns.mkString(", ")})"
}

/** Everything a session needs to use a dataset's metadata, stored as `index.json` per version. */
case class DatasetIndex(formatVersion: Int, datasetRoot: String, format: String, indexes: Seq[IndexSpec])

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
        metadataColumns = (ix \ "metadataColumns").extract[Map[String, String]],
        params = (ix \ "params").extractOpt[Map[String, String]].getOrElse(Map.empty))
    }
    DatasetIndex(version, (json \ "datasetRoot").extract[String], (json \ "format").extract[String], indexes)
  }
}
