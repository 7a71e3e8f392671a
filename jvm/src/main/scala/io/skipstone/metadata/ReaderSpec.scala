package io.skipstone.metadata

import java.util.Locale

import org.json4s._
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.{FileFormat, HadoopFsRelation}
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types._

/**
 * How a relation reads its files. The same bytes read differently hold different values (a
 * CSV read with another separator, header or null marker; text timestamps parsed in another
 * time zone; Parquet dates rebased from the Julian calendar), so metadata is valid only for
 * reads made the way it was built. Stored with each metadata version and compared with the
 * reading relation at query time.
 *
 * @param options    the reader options that can change values, keys lower-cased
 * @param dataSchema the file columns in order, kept for formats that map columns by position
 * @param timeZone   the zone text formats parse timestamps in (their `timeZone` option or the session's)
 * @param rebase     Parquet's read-side calendar rebase modes, which shift old dates and timestamps
 */
case class ReaderSpec(
    format: String,
    options: Map[String, String],
    dataSchema: Option[StructType],
    timeZone: Option[String],
    rebase: Option[String]) {

  def toJson: JValue =
    ("format" -> format) ~ ("options" -> options) ~ ("dataSchema" -> dataSchema.map(s => JsonMethods.parse(s.json))) ~
      ("timeZone" -> timeZone) ~ ("rebase" -> rebase)

  /**
   * Why metadata built under `this` does not hold for a read under `now`: reasons that void
   * every index, then reasons that void only indexes over datetime columns.
   */
  def differences(now: ReaderSpec): (Seq[String], Seq[String]) = {
    val all = Seq(
      Option.when(format != now.format)(s"built for format $format, read as ${now.format}"),
      Option.when(options != now.options)(
        s"built with reader options ${ReaderSpec.show(options)}, read with ${ReaderSpec.show(now.options)}"),
      Option.when(dataSchema.isDefined && dataSchema != now.dataSchema)(
        "built with other columns or column order; this format maps columns by position")).flatten
    val datetimes = Seq(
      Option.when(timeZone != now.timeZone)(
        s"timestamps were parsed in time zone ${timeZone.getOrElse("-")}, now in ${now.timeZone.getOrElse("-")}"),
      Option.when(rebase != now.rebase)(
        s"Parquet calendar rebase was ${rebase.getOrElse("-")}, now ${now.rebase.getOrElse("-")}")).flatten
    (all, datetimes)
  }
}

object ReaderSpec {
  /** Text formats parse values from strings at read time, under options and the session's zone. */
  private val TextFormats = Set("csv", "json", "xml", "text")
  /** Formats whose reader maps the schema's columns to the file's by position. */
  private val PositionalFormats = Set("csv", "text")

  /** Options that choose files or tolerate errors, never change a value read. */
  private val NotValueOptions = Set("path", "paths", "basepath", "pathglobfilter", "recursivefilelookup",
    "modifiedbefore", "modifiedafter", "ignorecorruptfiles", "ignoremissingfiles", "mergeschema",
    "samplingratio", "inferschema", "enforceschema")

  /** For binary formats only these options change values. */
  private val BinaryValueOptions = Set("datetimerebasemode", "int96rebasemode")

  def of(relation: HadoopFsRelation, session: SparkSession): ReaderSpec =
    of(Reading(relation.fileFormat, relation.options, relation.dataSchema), session)

  /** What of a relation decides its reads, without the relation (a file index must not hold it). */
  case class Reading(fileFormat: FileFormat, options: Map[String, String], dataSchema: StructType)

  def of(reading: Reading, session: SparkSession): ReaderSpec = {
    val format = reading.fileFormat match {
      case r: DataSourceRegister => r.shortName().toLowerCase(Locale.ROOT)
      case other => other.getClass.getName
    }
    val lowered = reading.options.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> v.trim }
    val text = TextFormats(format)
    val options = lowered.filter { case (k, _) =>
      if (text) !NotValueOptions(k) && !k.startsWith("__") else BinaryValueOptions(k)
    }.map { case (k, v) => k -> normalizeValue(v) }
    val conf = session.sessionState.conf
    ReaderSpec(
      format,
      options,
      Option.when(PositionalFormats(format))(reading.dataSchema),
      Option.when(text)(lowered.getOrElse("timezone", conf.sessionLocalTimeZone)),
      Option.when(format == "parquet")(Seq("datetimeRebaseModeInRead", "int96RebaseModeInRead")
        .map(k => conf.getConfString(s"spark.sql.parquet.$k", "CORRECTED").toUpperCase(Locale.ROOT)).mkString("/")))
  }

  /** The spec stored with older metadata, which recorded only the format. */
  def legacy(format: String): ReaderSpec = ReaderSpec(format, Map.empty, None, None, None)

  def fromJson(json: JValue): ReaderSpec = {
    implicit val formats: Formats = DefaultFormats
    ReaderSpec(
      (json \ "format").extract[String],
      (json \ "options").extractOpt[Map[String, String]].getOrElse(Map.empty),
      (json \ "dataSchema").toOption.filter(_ != JNull).map(s => DataType.fromJson(JsonMethods.compact(s)).asInstanceOf[StructType]),
      (json \ "timeZone").extractOpt[String],
      (json \ "rebase").extractOpt[String])
  }

  /** Whether an index over columns of these types depends on the time zone or calendar. */
  def involvesDatetimes(types: Seq[DataType]): Boolean = types.exists {
    case DateType | TimestampType | TimestampNTZType => true
    case ArrayType(element, _) => involvesDatetimes(Seq(element))
    case MapType(k, v, _) => involvesDatetimes(Seq(k, v))
    case s: StructType => involvesDatetimes(s.fields.map(_.dataType).toSeq)
    case _ => false
  }

  // Spark reads booleans case-insensitively: "True" and "true" are one setting.
  private def normalizeValue(v: String): String =
    if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) v.toLowerCase(Locale.ROOT) else v

  private def show(options: Map[String, String]): String =
    if (options.isEmpty) "none" else options.toSeq.sorted.map { case (k, v) => s"$k=$v" }.mkString(", ")
}
