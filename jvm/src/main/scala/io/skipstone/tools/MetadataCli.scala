package io.skipstone.tools

import java.io.{FileNotFoundException, PrintStream}
import java.nio.charset.StandardCharsets

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType
import org.json4s._
import org.json4s.jackson.JsonMethods

import io.skipstone.metadata.{MetadataStore, StoreConf}
import io.skipstone.sql.{ResolvedTarget, TableName}
import io.skipstone.table.{Snapshot, SkipstoneTable, TableDetail, TableLog, TableSettings, Tables, UnindexedFiles}

/**
 * The command line's metadata questions answered without a SparkSession: the `skipstone`
 * commands `history`, `properties`, `files`, `describe` and `stats` run
 *
 * {{{
 *   java -cp skipstone.jar:<pyspark>/jars/'*' io.skipstone.tools.MetadataCli history /data/events [KEY=VALUE...]
 * }}}
 *
 * and render the one JSON document it prints. The settings are the Spark settings that matter
 * here: `spark.skipstone.metadataRoot`, and `spark.hadoop.*` (given to Hadoop without the prefix,
 * as Spark does). The answers come from the same readers the
 * session's API uses ([[TableLog]], [[TableDetail]], [[MetadataStore]]) with a bare Hadoop
 * `Configuration`, so the formats keep one reader. A user error (no table, no metadata) is one
 * line on stderr and exit code 1; a wrong command line exit code 2.
 */
object MetadataCli {
  val Commands: Seq[String] = Seq("history", "properties", "files", "describe", "stats")
  private val HadoopPrefix = "spark.hadoop."

  def main(args: Array[String]): Unit = {
    val out = new PrintStream(System.out, true, StandardCharsets.UTF_8)
    args.toList match {
      case command :: path :: settings if Commands.contains(command) && settings.forall(_.contains("=")) =>
        val pairs = settings.map(_.split("=", 2)).map(kv => kv(0) -> kv(1)).toMap
        val conf = new Configuration()
        pairs.foreach { case (k, v) => if (k.startsWith(HadoopPrefix)) conf.set(k.stripPrefix(HadoopPrefix), v) }
        val metadataRoot = pairs.get(StoreConf.MetadataRoot).map(_.trim).filter(_.nonEmpty)
        try out.println(answer(conf, metadataRoot, command, path))
        catch {
          case e @ (_: IllegalArgumentException | _: FileNotFoundException) =>
            System.err.println(Option(e.getMessage).getOrElse(e.toString))
            System.exit(1)
        }
      case _ =>
        System.err.println(s"usage: MetadataCli ${Commands.mkString("|")} PATH [KEY=VALUE...]")
        System.exit(2)
    }
  }

  /** The same answer from a session (its Hadoop settings and metadata root). */
  def answer(session: SparkSession, command: String, path: String): String =
    answer(session.sessionState.newHadoopConf(), StoreConf.metadataRoot(session), command, path, Some(session))

  /** [[answer]] for the catalog table `name` (`t`, `db.t`): only a session knows where it lives. */
  def answerForName(session: SparkSession, command: String, name: String): String =
    answer(session, command, location(session, name))

  /** The root directory of the catalog table `name`; a view or a table without files is refused, naming it. */
  def location(session: SparkSession, name: String): String =
    ResolvedTarget(session, TableName(session.sessionState.sqlParser.parseMultipartIdentifier(name).toSeq)).root

  /** The JSON document `command` prints for the table or dataset at `path`. */
  def answer(conf: Configuration, metadataRoot: Option[String], command: String, path: String): String =
    answer(conf, metadataRoot, command, path, None)

  /** With a session, the metadata is read from whichever store holds it, the catalog's too. */
  private def answer(conf: Configuration, metadataRoot: Option[String], command: String, path: String,
                     session: Option[SparkSession]): String = {
    val root = MetadataStore.qualify(conf, path)
    val found: JValue = command match {
      case "history" =>
        JArray(Tables.historyRows(requireTable(conf, root), root).map { row =>
          val fields = rowJson(Tables.HistorySchema, row)
          // the commit info is JSON already: nest it rather than quote it
          JObject(fields.obj.map {
            case ("commit_info", JString(info)) => "commit_info" -> JsonMethods.parse(info)
            case other => other
          })
        }.toList)
      case "properties" => mapJson(TableSettings.Defaults ++ newest(conf, root).properties)
      case "files" => JArray(SkipstoneTable.fileRows(newest(conf, root)).map(rowJson(SkipstoneTable.FilesSchema, _)).toList)
      case "describe" => describe(conf, metadataRoot, root, session)
      case "stats" => describe(conf, metadataRoot, root, session) merge stats(conf, root)
      case other => throw new IllegalArgumentException(s"no metadata command $other; one of ${Commands.mkString(", ")}")
    }
    JsonMethods.compact(JsonMethods.render(found))
  }

  /** The managed table's detail (or null for a plain dataset) and its skipping metadata (or null). */
  private def describe(conf: Configuration, metadataRoot: Option[String], root: String,
                       session: Option[SparkSession]): JObject = {
    val store = session.map(MetadataStore.of(_, root))
    val current = store.fold(MetadataStore.current(conf, metadataRoot, root))(_.current())
    val location = store.fold(MetadataStore.metadataDir(metadataRoot, root).toString)(_.location)
    val table = TableLog.latestVersion(conf, root).map(_ => rowJson(TableDetail.Schema, TableDetail.row(conf, root, None)))
    val metadata = current.map { case (version, tableDir, definition) =>
      // files_indexed is null for encrypted metadata whose footer key this configuration lacks
      val files = MetadataStore.filesIndexed(conf, tableDir)
      JObject("version" -> JLong(version), "dir" -> JString(location),
        "files_indexed" -> files.map(JLong(_)).getOrElse(JNull), "bytes" -> JLong(MetadataStore.tableBytes(conf, tableDir)),
        "definition" -> JsonMethods.parse(definition))
    }
    JObject("root" -> JString(root), "table" -> table.getOrElse(JNull), "metadata" -> metadata.getOrElse(JNull))
  }

  /** How a managed table's rows are spread over blocks and files, and the files other writers left in its root. */
  private def stats(conf: Configuration, root: String): JObject = TableLog.latest(conf, root) match {
    case None => JObject()
    case Some(s) =>
      val sizes = s.files.map(_.size).sorted
      val perBlock = s.files.groupBy(_.block).values.map(_.size)
      def at(q: Double): JValue = if (sizes.isEmpty) JNull else JLong(sizes(((sizes.size - 1) * q).round.toInt))
      JObject("layout" -> JObject(
        "blocks" -> JLong(perBlock.size.toLong), "files_per_block_max" -> JLong(perBlock.maxOption.getOrElse(0).toLong),
        "file_bytes_min" -> at(0.0), "file_bytes_median" -> at(0.5), "file_bytes_max" -> at(1.0),
        "unindexed_files" -> JLong(UnindexedFiles.list(conf, root, s).size.toLong)))
  }

  private def requireTable(conf: Configuration, root: String): Configuration = {
    if (TableLog.latestVersion(conf, root).isEmpty) throw notATable(root)
    conf
  }

  private def newest(conf: Configuration, root: String): Snapshot = TableLog.latest(conf, root).getOrElse(throw notATable(root))

  private def notATable(root: String) =
    new IllegalArgumentException(s"$root is not a Skipstone managed table (no log under ${TableLog.logDir(root)})")

  private def rowJson(schema: StructType, row: Row): JObject =
    JObject(schema.fieldNames.toList.zipWithIndex.map { case (name, i) => name -> valueJson(row.get(i)) })

  private def mapJson(m: scala.collection.Map[_, _]): JObject =
    JObject(m.toList.map { case (k, v) => k.toString -> valueJson(v) }.sortBy(_._1))

  private def valueJson(value: Any): JValue = value match {
    case null => JNull
    case t: java.sql.Timestamp => JString(t.toInstant.toString)
    case s: String => JString(s)
    case l: Long => JLong(l)
    case i: Int => JLong(i.toLong)
    case d: Double if d.isNaN || d.isInfinite => JString(d.toString)
    case d: Double => JDouble(d)
    case b: Boolean => JBool(b)
    case m: scala.collection.Map[_, _] => mapJson(m)
    case xs: Iterable[_] => JArray(xs.map(valueJson).toList)
    case other => JString(other.toString)
  }
}
