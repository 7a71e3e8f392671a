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
      ("absorbed" -> JArray(s.absorbed.toSeq.sortBy(_.path).map(absorbedJson).toList))

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
      readAbsorbed(json \ "absorbed"))
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
      readAbsorbed(json \ "absorbed"))
  }

  private def absorbedJson(a: AbsorbedFile): JValue = a.identity.fold(JString(a.path): JValue) { id =>
    ("path" -> a.path) ~ ("size" -> id.size) ~ ("modificationTime" -> id.modificationTime) ~
      ("fingerprint" -> id.fingerprint)
  }

  /** Entries are objects with the file's identity; a plain name is an entry written before identities were. */
  private def readAbsorbed(j: JValue): Set[AbsorbedFile] = j.children.map {
    case JString(name) => AbsorbedFile(name, None)
    case o => AbsorbedFile((o \ "path").extract[String], Some(io.skipstone.metadata.FileIdentity(
      (o \ "size").extract[Long], (o \ "modificationTime").extract[Long], (o \ "fingerprint").extractOpt[String])))
  }.toSet

  private def fileJson(f: DataFile): JObject =
    ("path" -> f.path) ~ ("size" -> f.size) ~ ("modificationTime" -> f.modificationTime) ~
      ("block" -> f.block) ~ ("rows" -> f.rows)

  private def readFile(j: JValue): DataFile =
    DataFile((j \ "path").extract[String], (j \ "size").extract[Long], (j \ "modificationTime").extract[Long],
      (j \ "block").extract[Long], (j \ "rows").extract[Long])
}
