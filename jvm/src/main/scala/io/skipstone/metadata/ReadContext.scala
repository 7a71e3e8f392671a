package io.skipstone.metadata

import java.util.Locale

import scala.util.Try

import org.json4s._
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import org.apache.spark.SPARK_VERSION
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.execution.datasources.{FileFormat, HadoopFsRelation}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types._

import io.skipstone.encryption.EncryptionConf

/**
 * Everything that decides which values a relation reads from its files: the same bytes read
 * differently hold different values (a CSV read with another separator, header or null marker;
 * timestamps parsed in another zone; columns mapped by position, by field id or by another
 * spelling; a session that parses dates the legacy way). A metadata version records the
 * context its build read under, and a query uses the metadata only when its own read is equal
 * in effect.
 *
 * This is an allowlist: every reader option and every `spark.sql.*` setting counts, except
 * those in [[ReadContext.FileChoosingOptions]] and [[ReadContext.ValueNeutralSettings]], each of
 * which is reviewed as never changing a value read (docs/skipping.md lists them and why).
 *
 * @param format           the reader's short name (`parquet`, `csv`, ...)
 * @param options          every reader option but the file-choosing ones, keys lower-cased
 * @param dataSchema       the file columns as read, in order, with their metadata (field ids)
 * @param partitionColumns columns whose values the reader derives from paths, not from files
 * @param timeZone         the session time zone
 * @param settings         the `spark.sql.*` settings set in the session, but the value-neutral ones
 * @param sparkVersion     major.minor: defaults of unset settings are this version's
 */
case class ReadContext(
    format: String,
    options: Map[String, String],
    dataSchema: StructType,
    partitionColumns: Seq[String],
    timeZone: String,
    settings: Map[String, String],
    sparkVersion: String) {
  import ReadContext._

  def toJson: JValue =
    ("format" -> format) ~ ("options" -> options) ~ ("dataSchema" -> JsonMethods.parse(dataSchema.json)) ~
      ("partitionColumns" -> partitionColumns) ~ ("timeZone" -> timeZone) ~ ("settings" -> settings) ~
      ("sparkVersion" -> sparkVersion)

  /**
   * Whether the rows or values read depend on which columns a query projects: a parse mode that
   * drops a row only when its malformed column is parsed, or JSON without partial results,
   * which nulls a whole struct when a field the query may not read fails to parse.
   */
  def valuesDependOnProjection: Boolean =
    (TextFormats(format) && options.get("mode").exists(_.equalsIgnoreCase("DROPMALFORMED"))) ||
      (format == "json" && settings.get("spark.sql.json.enablePartialResults").contains("false"))

  /**
   * Why metadata built under `this` does not hold for a read under `now`: reasons that void
   * every index (and the row counts), then reasons that void only indexes over datetime values.
   */
  def differences(now: ReadContext): Differences = {
    val all = Seq(
      Option.when(format != now.format)(s"built for format $format, read as ${now.format}"),
      Option.when(valuesDependOnProjection || now.valuesDependOnProjection)(
        "the read drops rows or values depending on the columns a query reads (mode DROPMALFORMED, " +
          "or JSON with spark.sql.json.enablePartialResults=false)"),
      Option.when(sparkVersion != now.sparkVersion)(
        s"built under Spark $sparkVersion, read under ${now.sparkVersion}, whose defaults may differ"),
      differing("reader option", valueOptions(options), valueOptions(now.options), _ => "unset"),
      differing("setting", valueSettings(settings), valueSettings(now.settings), defaultOf)).flatten
    val zoneMatters = zoneChangesValues(this) || zoneChangesValues(now)
    val datetimes = Seq(
      Option.when(zoneMatters && !sameZone(timeZone, now.timeZone))(
        s"timestamps were read in time zone $timeZone, now in ${now.timeZone}"),
      differing("reader option", datetimeOptions(options), datetimeOptions(now.options), _ => "unset"),
      differing("setting", datetimeSettings(settings), datetimeSettings(now.settings), defaultOf)).flatten
    val expressions = differing("setting", expressionSettings(settings), expressionSettings(now.settings), defaultOf).toSeq
    // JSON and XML parsers null a whole record when one field fails to parse (no partial
    // results): there, how datetimes parse changes every column.
    if (WholeRecordFormats(format)) Differences(all ++ datetimes, Nil, expressions)
    else Differences(all, datetimes, expressions)
  }

  /**
   * Why an index over `paths` (exact paths in the build's schema) cannot answer a read under
   * `now`: one of its columns is a partition column (its value is the reader's, derived from a
   * path, while metadata is keyed by file), or the read maps it to another file column.
   */
  def columnMismatch(paths: Seq[ColumnPath], now: ReadContext, resolver: Resolver): Option[String] = {
    val tops = paths.flatMap(_.parts.headOption).distinct
    def partitionIn(ctx: ReadContext, name: String) = ctx.partitionColumns.exists(resolver(_, name))
    tops.collectFirst {
      case top if partitionIn(this, top) || partitionIn(now, top) =>
        s"$top is a partition column: Spark prunes partitions; per-file metadata never answers them"
    }.orElse(tops.flatMap(top => binding(top, now, resolver)).headOption)
  }

  /** Why `now` reads the column `top` from another file column than the build did, if it does. */
  private def binding(top: String, now: ReadContext, resolver: Resolver): Option[String] = {
    val built = dataSchema.fields.indexWhere(_.name == top)
    val read = now.dataSchema.fields.indexWhere(f => resolver(f.name, top))
    if (built < 0) None // not a file column of the build (schema checks decide the rest)
    else if (read < 0) Some(s"$top is not a column of the files as this query reads them")
    else {
      val (b, r) = (dataSchema.fields(built), now.dataSchema.fields(read))
      if (b.name != r.name) Some(s"$top was indexed as ${b.name} and is read as ${r.name}, which the reader may map to another file column")
      else if (fieldId(b) != fieldId(r)) Some(s"$top is read by field id ${fieldId(r).getOrElse("-")}, indexed with ${fieldId(b).getOrElse("-")}")
      // Reading by field id maps nested fields by their ids too, which types do not compare.
      else if ((readsByFieldId(this) || readsByFieldId(now)) && b.copy(nullable = true) != r.copy(nullable = true))
        Some(s"$top is read by field ids and its nested fields' ids or names differ from when it was indexed")
      else if (PositionalFormats(format) && built != read)
        Some(s"$top is column ${read + 1} of this read and was column ${built + 1} when indexed; $format maps columns by position")
      else None
    }
  }
}

/**
 * [[ReadContext.differences]]: reasons voiding every index, reasons voiding indexes over datetime
 * values, and reasons voiding indexes whose values are expressions the build evaluated (rules).
 */
case class Differences(everyIndex: Seq[String], datetimeIndexes: Seq[String], expressionIndexes: Seq[String]) {
  /** Whether values read (and row counts) are the build's. */
  def readsAlike: Boolean = everyIndex.isEmpty && datetimeIndexes.isEmpty
  def isEmpty: Boolean = readsAlike && expressionIndexes.isEmpty
}

object ReadContext {
  /** Formats that parse values from text at read time, under options, zone and parser settings. */
  private val TextFormats = Set("csv", "json", "xml", "text")
  /** Formats whose parsers drop a whole record's values when one field fails. */
  private val WholeRecordFormats = Set("json", "xml")
  /**
   * Formats whose reader may map read columns to file columns by position: CSV and text
   * always, ORC when files were written by Hive (columns named `_col0`, `_col1`, ...).
   */
  private val PositionalFormats = Set("csv", "text", "orc")

  /**
   * Reader options that only choose which files are read or how their listing is made, never
   * a value read from a file (partition values, which `basePath` and `recursiveFileLookup`
   * change, are never answered from metadata), or that only infer a schema (the schema is
   * compared itself) or only decide whether an unreadable file fails the query. A managed
   * table's `versionAsOf` and `timestampAsOf` choose the version, i.e. its files, and the
   * metadata version that version records.
   */
  val FileChoosingOptions: Set[String] = Set("path", "paths", "basepath", "pathglobfilter", "recursivefilelookup",
    "modifiedbefore", "modifiedafter", "ignorecorruptfiles", "ignoremissingfiles", "mergeschema",
    "samplingratio", "inferschema", "prefersdecimal", "primitivesasstring", "enforceschema",
    "versionasof", "timestampasof")

  /** Options that change only datetime values: how text timestamps parse, how Parquet rebases. */
  private val DatetimeOptions = Set("timezone", "dateformat", "timestampformat", "timestampntzformat",
    "datetimerebasemode", "int96rebasemode")

  /**
   * `spark.sql.*` settings reviewed as never changing a value a file read produces nor a
   * function's result: plan shape, parallelism, caching, statistics, UI, and pushdown of
   * filters Spark applies exactly anyway. Exact keys and prefixes (ending in a dot).
   */
  val ValueNeutralSettings: Seq[String] = Seq(
    "spark.sql.shuffle.partitions", "spark.sql.adaptive.", "spark.sql.autoBroadcastJoinThreshold",
    "spark.sql.broadcastTimeout", "spark.sql.join.", "spark.sql.cbo.", "spark.sql.statistics.",
    "spark.sql.codegen.", "spark.sql.ui.", "spark.sql.debug.", "spark.sql.maxPlanStringLength",
    "spark.sql.maxMetadataStringLength", "spark.sql.files.maxPartitionBytes", "spark.sql.files.openCostInBytes",
    "spark.sql.files.minPartitionNum", "spark.sql.files.ignoreMissingFiles", "spark.sql.files.ignoreCorruptFiles", "spark.sql.files.maxPartitionNum", "spark.sql.leafNodeDefaultParallelism",
    "spark.sql.sources.parallelPartitionDiscovery.", "spark.sql.parquet.filterPushdown",
    "spark.sql.parquet.recordLevelFilter.enabled", "spark.sql.parquet.enableVectorizedReader",
    "spark.sql.parquet.enableNestedColumnVectorizedReader", "spark.sql.parquet.columnarReaderBatchSize",
    "spark.sql.orc.filterPushdown", "spark.sql.orc.enableVectorizedReader",
    "spark.sql.orc.enableNestedColumnVectorizedReader", "spark.sql.orc.columnarReaderBatchSize",
    "spark.sql.inMemoryColumnarStorage.", "spark.sql.warehouse.dir", "spark.sql.catalogImplementation",
    "spark.sql.extensions", "spark.sql.queryExecutionListeners", "spark.sql.streaming.",
    "spark.sql.execution.arrow.pyspark.", "spark.sql.sources.bucketing.", "spark.sql.bucketing.",
    "spark.sql.optimizer.dynamicPartitionPruning.",
    // catalogs resolve names to tables; the files of a relation already resolved read alike
    // (Iceberg's rewrite_data_files registers catalogs in the session as it runs)
    "spark.sql.catalog.", "spark.sql.defaultCatalog",
    // external Java types of dates and timestamps (java.time or java.sql), never the values read
    "spark.sql.datetime.java8API.enabled", "spark.sql.artifact.isolation.enabled",
    // write-side only: how files are written, never how they are read
    "spark.sql.parquet.compression.codec", "spark.sql.orc.compression.codec", "spark.sql.parquet.outputTimestampType",
    "spark.sql.parquet.writeLegacyFormat", "spark.sql.parquet.datetimeRebaseModeInWrite",
    "spark.sql.parquet.int96RebaseModeInWrite", "spark.sql.parquet.fieldId.write.enabled",
    "spark.sql.files.maxRecordsPerFile", "spark.sql.sources.partitionOverwriteMode",
    "spark.sql.sources.commitProtocolClass", "spark.sql.parquet.output.committer.class")

  /** Settings reviewed as changing only datetime values (text parsing, Parquet's calendar). */
  private val DatetimeSettings = Set("spark.sql.legacy.timeParserPolicy", "spark.sql.parquet.datetimeRebaseModeInRead",
    "spark.sql.parquet.int96RebaseModeInRead", "spark.sql.avro.datetimeRebaseModeInRead")

  /**
   * Settings reviewed as never consulted by a file reader, but by functions: they change only
   * the values of indexes over expressions the build evaluated (Formatted, user kinds).
   */
  private val ExpressionSettings = Set("spark.sql.binaryOutputStyle")

  private val ZoneKey = SQLConf.SESSION_LOCAL_TIMEZONE.key

  /** Zones with the same rules read every value alike, whatever their names (`UTC`, `Etc/UTC`). */
  def sameZone(a: String, b: String): Boolean =
    a == b || Try(java.time.ZoneId.of(a).getRules == java.time.ZoneId.of(b).getRules).getOrElse(false)

  def isValueNeutral(key: String): Boolean =
    ValueNeutralSettings.exists(n => if (n.endsWith(".")) key.startsWith(n) else key == n)

  /**
   * What of a relation decides its reads, without the relation (a file index must not hold it).
   *
   * @param tableFormat the table format whose reader decides values when it is not Spark's file
   *                    source (`iceberg`: its Parquet files read by field id), recorded as the format
   */
  case class Reading(fileFormat: FileFormat, options: Map[String, String], dataSchema: StructType,
                     partitionSchema: StructType, tableFormat: Option[String] = None)

  object Reading {
    def of(fs: HadoopFsRelation): Reading = Reading(fs.fileFormat, fs.options, fs.dataSchema, fs.partitionSchema)
  }

  def of(relation: HadoopFsRelation, session: SparkSession): ReadContext = of(Reading.of(relation), session)

  def of(reading: Reading, session: SparkSession): ReadContext = {
    val format = reading.tableFormat.getOrElse(reading.fileFormat match {
      case r: DataSourceRegister => r.shortName().toLowerCase(Locale.ROOT)
      case other => other.getClass.getName
    })
    // Parquet encryption settings decide whether a file can be read, never what it holds, and
    // may carry credentials: never recorded (see EncryptionConf.isCryptoSetting).
    val options = reading.options.collect {
      case (k, v) if !FileChoosingOptions(k.toLowerCase(Locale.ROOT)) && !k.startsWith("__") &&
        !EncryptionConf.isCryptoSetting(k) =>
        k.toLowerCase(Locale.ROOT) -> normalizeValue(v)
    }
    val conf = session.sessionState.conf
    val settings = conf.getAllConfs.collect {
      case (k, v) if k.startsWith("spark.sql.") && k != ZoneKey && !isValueNeutral(k) &&
        !SQLConf.isStaticConfigKey(k) => k -> normalizeValue(v)
    }
    ReadContext(format, options, reading.dataSchema, reading.partitionSchema.fieldNames.toSeq,
      conf.sessionLocalTimeZone, settings, majorMinor(SPARK_VERSION))
  }

  def fromJson(json: JValue): Option[ReadContext] = {
    implicit val formats: Formats = DefaultFormats
    (json \ "dataSchema").toOption.filter(_ != JNull).map { schema =>
      ReadContext(
        (json \ "format").extract[String],
        (json \ "options").extractOpt[Map[String, String]].getOrElse(Map.empty),
        DataType.fromJson(JsonMethods.compact(schema)).asInstanceOf[StructType],
        (json \ "partitionColumns").extractOpt[Seq[String]].getOrElse(Nil),
        (json \ "timeZone").extract[String],
        (json \ "settings").extractOpt[Map[String, String]].getOrElse(Map.empty),
        (json \ "sparkVersion").extract[String])
    }
  }

  /** Whether an index over columns of these types depends on time zones or calendars. */
  def involvesDatetimes(types: Seq[DataType]): Boolean = types.exists {
    case DateType | TimestampType | TimestampNTZType => true
    case ArrayType(element, _) => involvesDatetimes(Seq(element))
    case MapType(k, v, _) => involvesDatetimes(Seq(k, v))
    case s: StructType => involvesDatetimes(s.fields.map(_.dataType).toSeq)
    case _ => false
  }

  /**
   * Parquet stores timestamps as instants or wall clocks and never reads them in the session
   * zone, unless told to convert INT96 values of other writers (Iceberg's files hold none). Every
   * other format may.
   */
  private def zoneChangesValues(ctx: ReadContext): Boolean =
    !ZoneFreeFormats(ctx.format) || ctx.settings.get(SQLConf.PARQUET_INT96_TIMESTAMP_CONVERSION.key).contains("true")

  private val ZoneFreeFormats = Set("parquet", BuildSource.IcebergFormat)

  private def valueOptions(o: Map[String, String]) = o.filter { case (k, _) => !DatetimeOptions(k) }
  private def datetimeOptions(o: Map[String, String]) = o.filter { case (k, _) => DatetimeOptions(k) }
  private def valueSettings(s: Map[String, String]) = s.filter { case (k, _) => !DatetimeSettings(k) && !ExpressionSettings(k) }
  private def expressionSettings(s: Map[String, String]) = s.filter { case (k, _) => ExpressionSettings(k) }
  private def datetimeSettings(s: Map[String, String]) = s.filter { case (k, _) => DatetimeSettings(k) }

  /** What an unset setting means: its default in this Spark, or "unset" for a key Spark does not know. */
  private def defaultOf(key: String): String =
    Try(Defaults.getConfString(key)).map(normalizeValue).getOrElse("unset")

  /** A conf with nothing set answers every key with its default. */
  private lazy val Defaults = new SQLConf

  /** The first key whose effective value differs, as a reason; unset keys take `default`. */
  private def differing(what: String, built: Map[String, String], now: Map[String, String],
                        default: String => String): Option[String] =
    (built.keySet ++ now.keySet).toSeq.sorted.collectFirst {
      case k if built.getOrElse(k, default(k)) != now.getOrElse(k, default(k)) =>
        s"built with $what $k=${built.getOrElse(k, default(k))}, read with ${now.getOrElse(k, default(k))}"
    }

  private def fieldId(f: StructField): Option[Long] =
    Option.when(f.metadata.contains(FieldIdKey))(f.metadata.getLong(FieldIdKey))

  private val FieldIdKey = "parquet.field.id"

  /** Whether columns are matched by field id: always for an Iceberg table, for Parquet when the session says. */
  private def readsByFieldId(ctx: ReadContext): Boolean = ctx.format == BuildSource.IcebergFormat ||
    (ctx.format == "parquet" && ctx.settings.get(SQLConf.PARQUET_FIELD_ID_READ_ENABLED.key).contains("true"))

  private def majorMinor(version: String): String = version.split('.').take(2).mkString(".")

  // Spark reads booleans case-insensitively: "True" and "true" are one setting.
  private def normalizeValue(v: String): String = {
    val t = v.trim
    if (t.equalsIgnoreCase("true") || t.equalsIgnoreCase("false")) t.toLowerCase(Locale.ROOT) else t
  }
}
