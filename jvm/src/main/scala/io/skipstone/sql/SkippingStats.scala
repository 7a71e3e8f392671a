package io.skipstone.sql

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.StructType

import io.skipstone.query.{QueryStats, QueryStatsListener}

/**
 * What the session's last query skipped, for Scala and SQL (`SHOW SKIPPING STATS`); Python's
 * `skipstone.last_query_stats` reads the same listener.
 *
 * {{{
 *   spark.sql("SELECT * FROM parquet.`/data/events` WHERE k = 250").collect()
 *   SkippingStats.last(spark).map(_.filesSkipped)   // Some(9)
 *   SkippingStats.lastAsDataFrame(spark).show()
 * }}}
 */
object SkippingStats {
  /**
   * One row per indexed dataset the query read (`index` NULL: all its indexes together), then one
   * per index that ruled files out alone (`files_skipped`: those files; the other counts NULL).
   */
  val Schema: StructType = StructType.fromDDL("dataset STRING, index STRING, files_total BIGINT, " +
    "files_skipped BIGINT, files_read BIGINT, bytes_total BIGINT, bytes_skipped BIGINT, bytes_read BIGINT, " +
    "files_unindexed BIGINT, rows_skipped BIGINT, reasons ARRAY<STRING>")

  /** The last successful query's stats; None before the first query after enabling Skipstone. */
  def last(session: SparkSession): Option[QueryStats] = {
    QueryStatsListener.ensureRegistered(session)
    waitForListeners(session)
    QueryStatsListener.lastStats(session)
  }

  def rows(stats: QueryStats): Seq[Row] = stats.perDataset.flatMap { d =>
    val total = Row(d.datasetRoot, null, d.filesTotal, d.filesSkipped, d.filesTotal - d.filesSkipped, d.bytesTotal,
      d.bytesSkipped, d.bytesTotal - d.bytesSkipped, d.filesUnindexed, d.rowsSkipped, d.unanswered)
    total +: d.skippedByIndex.map { case (index, files) =>
      Row(d.datasetRoot, index, d.filesTotal, files, null, null, null, null, null, null, null)
    }
  }

  def lastAsDataFrame(session: SparkSession): DataFrame =
    session.createDataFrame(last(session).toSeq.flatMap(rows).asJava, Schema)

  /**
   * Query listeners run on Spark's listener bus thread after the query returns. The bus is
   * `private[spark]` in Scala but public in bytecode, hence reflection.
   */
  private def waitForListeners(session: SparkSession): Unit = {
    val sc = session.sparkContext
    val bus = sc.getClass.getMethod("listenerBus").invoke(sc)
    bus.getClass.getMethod("waitUntilEmpty").invoke(bus)
  }
}
