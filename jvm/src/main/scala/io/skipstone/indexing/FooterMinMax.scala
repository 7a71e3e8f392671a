package io.skipstone.indexing

import java.net.URI

import scala.jdk.CollectionConverters._
import scala.language.existentials
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import io.skipstone.encryption.ParquetFooters
import io.skipstone.metadata.ColumnPath

/**
 * MinMax metadata straight from Parquet footers: no data pages are read, so indexing costs a
 * few kilobytes per file instead of a scan. Produces the same table as the scanning path.
 *
 * A file whose footer cannot give every target's bounds (statistics left out, INT96 timestamps,
 * dates Spark rebases on read, a column the file lacks) is not summarized here: its path is
 * returned so that the caller scans it, as NULL bounds would make the index answer nothing.
 *
 * Strings stay UTF-8 bytes from footer to metadata row (never a `java.lang.String`): decoding
 * bytes that are not valid UTF-8 replaces them with U+FFFD, which sorts elsewhere, and the
 * bounds would no longer hold for the bytes Spark compares.
 */
object FooterMinMax {
  /** One MinMax index: the column's exact path, its Spark type, and its metadata column names. */
  case class Target(path: ColumnPath, dataType: DataType, min: String, max: String, nulls: String)

  /**
   * How Spark's reader in this session would interpret footers: case rules for column names,
   * and whether files with no Spark writer marker get their dates rebased (LEGACY read mode).
   */
  case class Reading(caseSensitive: Boolean, rebasesUnmarkedFiles: Boolean)

  object Reading {
    def of(session: SparkSession): Reading = {
      val conf = session.sessionState.conf
      Reading(conf.caseSensitiveAnalysis,
        conf.getConfString("spark.sql.parquet.datetimeRebaseModeInRead", "CORRECTED").equalsIgnoreCase("LEGACY"))
    }
  }

  /**
   * Footer metadata of the files whose footers give every bound (the listing's columns, `num_rows`
   * and each target's min, max, nulls), and the paths of the other files.
   */
  case class Collected(answered: DataFrame, unanswered: Seq[String])

  /** `files` has the listing's columns (path, size, mtime, fingerprint); they are kept as they are. */
  def collect(session: SparkSession, files: DataFrame, targets: Seq[Target]): Collected = {
    val conf = new SerializableConf(session.sessionState.newHadoopConf())
    val reading = Reading.of(session)
    val listing = files.schema.fields.toSeq
    val schema = StructType(listing ++ Seq(StructField("num_rows", LongType)) ++
        targets.flatMap(t => Seq(StructField(t.min, t.dataType), StructField(t.max, t.dataType),
          StructField(t.nulls, LongType))))
    val pathOrdinal = files.schema.fieldIndex("path")
    // Footers are small reads with high latency on object stores: many small tasks keep every
    // core busy (the listing arrives as one local partition).
    val slices = math.max(1, math.min(files.count() / 25, session.sparkContext.defaultParallelism * 8L)).toInt
    // One small row per file reaches the driver: which files need a scan must be known before
    // that scan is planned.
    val summaries = files.rdd.repartition(slices).map { r =>
      (r, summarize(conf.value, r.getString(pathOrdinal), targets, reading))
    }.collect().toSeq
    val answered = summaries.collect { case (r, Some(values)) => Row.fromSeq(r.toSeq ++ values) }
    Collected(session.createDataFrame(answered.asJava, schema),
      summaries.collect { case (r, None) => r.getString(pathOrdinal) })
  }

  /** num_rows and every target's (min, max, nulls), or None when some target's bounds are not in the footer. */
  private def summarize(conf: Configuration, file: String, targets: Seq[Target], reading: Reading): Option[Seq[Any]] = {
    val reader = ParquetFooters.open(conf, new Path(new URI(file)))
    try {
      val footer = reader.getFooter
      val blocks = footer.getBlocks.asScala.toSeq
      val rowCount = blocks.map(_.getRowCount).sum
      val rebased = datetimesRebasedOnRead(footer.getFileMetaData.getKeyValueMetaData.asScala.toMap, reading)
      val columns = targets.map { t =>
        if (rebased && isDatetime(t.dataType)) None else summarizeColumn(blocks, t, reading.caseSensitive)
      }
      Option.when(columns.forall(_.isDefined))(rowCount +: columns.flatMap(_.get))
    } finally reader.close()
  }

  /**
   * Whether Spark's reader shifts this file's dates and timestamps (Julian to Gregorian
   * rebase): files written with `datetimeRebaseModeInWrite=LEGACY` say so in their footer, and
   * files from other writers are rebased when the session reads in LEGACY mode. The footer's
   * min/max are the values before that shift, so they cannot stand for what queries see.
   */
  private def datetimesRebasedOnRead(keyValues: Map[String, String], reading: Reading): Boolean =
    keyValues.get("org.apache.spark.version") match {
      // Spark before 3.0 wrote hybrid-calendar values without saying so.
      case Some(version) => version < "3.0.0" || keyValues.contains("org.apache.spark.legacyDateTime")
      case None => reading.rebasesUnmarkedFiles
    }

  private def isDatetime(t: DataType): Boolean = t match {
    case DateType | TimestampType | TimestampNTZType => true
    case _ => false
  }

  /**
   * The column chunk Spark reads for `path`: the exact field names first. Spark also matches
   * Parquet names case-insensitively unless `spark.sql.caseSensitive` is on; a footer is used
   * then only when exactly one chunk matches, as Spark refuses ambiguous names too.
   */
  private def chunkOf(block: org.apache.parquet.hadoop.metadata.BlockMetaData, path: ColumnPath,
                      caseSensitive: Boolean) = {
    val chunks = block.getColumns.asScala.toSeq
    def names(c: org.apache.parquet.hadoop.metadata.ColumnChunkMetaData) = c.getPath.toArray.toSeq
    ColumnPath.pick(path, chunks, ColumnPath.resolver(caseSensitive))(c => ColumnPath(names(c)))
  }

  /** Min over row groups of their mins, etc.; None as soon as one row group is unusable. */
  private def summarizeColumn(blocks: Seq[org.apache.parquet.hadoop.metadata.BlockMetaData],
                              t: Target, caseSensitive: Boolean): Option[Seq[Any]] = {
    val ordering = TypeUtils.getInterpretedOrdering(t.dataType)
    val perBlock = blocks.map { b =>
      chunkOf(b, t.path, caseSensitive).flatMap { chunk =>
        val stats = chunk.getStatistics
        if (stats == null || stats.isEmpty || !stats.isNumNullsSet) None
        else if (!stats.hasNonNullValue) {
          // No min/max means "only NULLs" only when the NULLs are all the chunk's values:
          // parquet-mr drops the min/max of INT96 and of values too long to keep, yet counts NULLs.
          Option.when(stats.getNumNulls == chunk.getValueCount)((None, stats.getNumNulls))
        }
        else {
          try FooterValues.minMax(stats, chunk.getPrimitiveType, t.dataType).map(mm => (Some(mm), stats.getNumNulls))
          catch { case NonFatal(_) => None }
        }
      }
    }
    if (perBlock.exists(_.isEmpty)) None
    else {
      val known = perBlock.flatten
      val ranges = known.flatMap(_._1)
      val nulls = known.map(_._2).sum
      if (ranges.isEmpty) Some(Seq(null, null, nulls))
      else {
        // Row wants external values (LocalDate, BigDecimal, ...), the statistics give Catalyst
        // ones. Strings stay UTF8String, which createDataFrame takes as it is: a String would
        // have decoded (and so changed) bytes that are not valid UTF-8.
        def external(v: Any) = v match {
          case s: UTF8String => s
          case other => CatalystTypeConverters.convertToScala(other, t.dataType)
        }
        Some(Seq(external(ranges.map(_._1).min(ordering)), external(ranges.map(_._2).max(ordering)), nulls))
      }
    }
  }
}
