package io.skipstone.metadata

import org.apache.spark.network.util.JavaUtils
import org.apache.spark.sql.SparkSession

/** Settings of the driver's metadata cache and of where clauses are evaluated (issue 12). */
object CacheConf {
  /** Bytes the cached metadata versions may hold together ("512m", "2g"; default a quarter of the heap). */
  val MaxBytes = "spark.skipstone.metadataCache.maxBytes"

  def maxBytes(session: SparkSession): Long =
    session.conf.getOption(MaxBytes).map(_.trim).filter(v => v.nonEmpty && v != "auto").map { v =>
      try JavaUtils.byteStringAsBytes(v) catch {
        case e: NumberFormatException =>
          throw new IllegalArgumentException(s"$MaxBytes must be a size such as 512m or 2g, not '$v'", e)
      }
    }.getOrElse(Runtime.getRuntime.maxMemory / 4)

  /**
   * From how many files a version is evaluated with Spark over its table rather than held on
   * the driver. `auto` (default): when holding it would take more than half of `maxBytes`.
   */
  val DistributedMinFiles = "spark.skipstone.distributedEvaluation.minFiles"

  /** Whether a version of `files` files that would take about `bytes` bytes is evaluated with Spark. */
  def distributed(session: SparkSession, files: Long, bytes: Long): Boolean =
    session.conf.getOption(DistributedMinFiles).map(_.trim).filter(v => v.nonEmpty && v != "auto") match {
      case Some(v) =>
        val min = v.toLongOption.filter(_ >= 0).getOrElse(throw new IllegalArgumentException(
          s"$DistributedMinFiles must be 'auto' or a number of files, not '$v'"))
        files >= min
      case None => bytes > maxBytes(session) / 2
    }
}
