package io.skipstone.indexing

import java.net.URI

import scala.jdk.CollectionConverters._
import scala.language.existentials
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types._

/**
 * MinMax metadata straight from Parquet footers: no data pages are read, so indexing costs a
 * few kilobytes per file instead of a scan. Produces the same table as the scanning path.
 *
 * A file whose statistics are missing or unusable for a column gets NULL min, max and NULL
 * count for it, which the clauses read as "unknown": the file is read.
 */
object FooterMinMax {
  /** One MinMax index: the column's path, its Spark type, and its metadata column names. */
  case class Target(path: String, dataType: DataType, min: String, max: String, nulls: String)

  def collect(session: SparkSession, files: DataFrame, targets: Seq[Target]): DataFrame = {
    val conf = new SerializableConf(session.sessionState.newHadoopConf())
    val schema = StructType(
      Seq(StructField("path", StringType), StructField("size", LongType), StructField("mtime", LongType),
        StructField("num_rows", LongType)) ++
        targets.flatMap(t => Seq(StructField(t.min, t.dataType), StructField(t.max, t.dataType),
          StructField(t.nulls, LongType))))
    // Footers are small reads with high latency on object stores: many small tasks keep every
    // core busy (the listing arrives as one local partition).
    val slices = math.max(1, math.min(files.count() / 25, session.sparkContext.defaultParallelism * 8L)).toInt
    val rows = files.select("path", "size", "mtime").rdd.repartition(slices).map { r =>
      Row.fromSeq(Seq(r.getString(0), r.getLong(1), r.getLong(2)) ++ summarize(conf.value, r.getString(0), targets))
    }
    session.createDataFrame(rows, schema)
  }

  private def summarize(conf: Configuration, file: String, targets: Seq[Target]): Seq[Any] = {
    val reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(new URI(file)), conf))
    try {
      val blocks = reader.getFooter.getBlocks.asScala.toSeq
      val rowCount = blocks.map(_.getRowCount).sum
      rowCount +: targets.flatMap(t => summarizeColumn(blocks, t).getOrElse(Seq(null, null, null)))
    } finally reader.close()
  }

  /** Min over row groups of their mins, etc.; None as soon as one row group is unusable. */
  private def summarizeColumn(blocks: Seq[org.apache.parquet.hadoop.metadata.BlockMetaData],
                              t: Target): Option[Seq[Any]] = {
    val ordering = TypeUtils.getInterpretedOrdering(t.dataType)
    val perBlock = blocks.map { b =>
      b.getColumns.asScala.find(_.getPath.toDotString.equalsIgnoreCase(t.path)).flatMap { chunk =>
        val stats = chunk.getStatistics
        if (stats == null || stats.isEmpty || !stats.isNumNullsSet) None
        else if (!stats.hasNonNullValue) Some((None, stats.getNumNulls))
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
        // Row wants external values (String, LocalDate, ...), the statistics give Catalyst ones.
        def external(v: Any) = CatalystTypeConverters.convertToScala(v, t.dataType)
        Some(Seq(external(ranges.map(_._1).min(ordering)), external(ranges.map(_._2).max(ordering)), nulls))
      }
    }
  }
}
