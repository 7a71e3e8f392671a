package io.skipstone.table

import org.json4s._
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

/** The JSON of a log entry and of a change; the format is specified in docs/table-format.md. */
object SnapshotJson {
  val Format = "skipstone.table"
  val FormatVersion = 1
  private implicit val formats: Formats = DefaultFormats

  def write(s: Snapshot): String = JsonMethods.compact(JsonMethods.render(toJson(s)))

  def toJson(s: Snapshot): JObject =
    ("format" -> Format) ~ ("formatVersion" -> FormatVersion) ~ ("version" -> s.version) ~
      ("timestamp" -> s.timestampMillis) ~ ("operation" -> s.operation) ~
      ("files" -> JArray(s.files.map(fileJson).toList)) ~ ("layout" -> s.layout) ~
      ("metadataVersion" -> s.metadataVersion) ~ ("properties" -> s.properties) ~ ("commitInfo" -> s.commitInfo) ~
      ("absorbed" -> s.absorbed.toSeq.sorted)

  def read(text: String): Snapshot = {
    val json = JsonMethods.parse(text)
    val format = (json \ "format").extractOpt[String]
    require(format.contains(Format), s"not a Skipstone table log entry (format ${format.getOrElse("missing")})")
    val formatVersion = (json \ "formatVersion").extract[Int]
    require(formatVersion <= FormatVersion,
      s"table log format version $formatVersion is newer than this Skipstone reads ($FormatVersion); upgrade Skipstone")
    Snapshot(
      (json \ "version").extract[Long],
      (json \ "timestamp").extract[Long],
      (json \ "operation").extract[String],
      (json \ "files").children.map(readFile),
      json \ "layout",
      (json \ "metadataVersion").extractOpt[Long],
      (json \ "properties").extractOpt[Map[String, String]].getOrElse(Map.empty),
      (json \ "commitInfo") match { case o: JObject => o; case _ => JObject() },
      (json \ "absorbed").extractOpt[Seq[String]].getOrElse(Seq.empty).toSet)
  }

  /** `{"operation", "added": [file...], "removed": [path...], "layout"?, "metadataVersion"?, "properties"?, "commitInfo"?, "absorbed"?}` */
  def readChange(text: String): TableChange = {
    val json = JsonMethods.parse(text)
    TableChange(
      (json \ "operation").extract[String],
      (json \ "added").children.map(readFile),
      (json \ "removed").extractOpt[Seq[String]].getOrElse(Seq.empty).toSet,
      (json \ "layout") match { case JNothing | JNull => None; case v => Some(v) },
      (json \ "metadataVersion").extractOpt[Long],
      (json \ "properties").extractOpt[Map[String, String]].getOrElse(Map.empty),
      (json \ "commitInfo") match { case o: JObject => o; case _ => JObject() },
      (json \ "absorbed").extractOpt[Seq[String]].getOrElse(Seq.empty).toSet)
  }

  private def fileJson(f: DataFile): JObject =
    ("path" -> f.path) ~ ("size" -> f.size) ~ ("modificationTime" -> f.modificationTime) ~
      ("block" -> f.block) ~ ("rows" -> f.rows)

  private def readFile(j: JValue): DataFile =
    DataFile((j \ "path").extract[String], (j \ "size").extract[Long], (j \ "modificationTime").extract[Long],
      (j \ "block").extract[Long], (j \ "rows").extract[Long])
}
