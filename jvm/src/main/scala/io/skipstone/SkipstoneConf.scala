package io.skipstone

import org.apache.spark.sql.SparkSession

/** Session settings users can change at runtime with `SET key=value` or `spark.conf.set`. */
object SkipstoneConf {
  val Enabled = "spark.skipstone.enabled"
  /** Where metadata lives when users cannot (or do not want to) write beside their data. */
  val MetadataRoot = "spark.skipstone.metadataRoot"
  /** How long the driver trusts its cached answer to "which metadata version is current". */
  val CacheTtlSeconds = "spark.skipstone.metadataCacheTtlSeconds"

  def enabled(session: SparkSession): Boolean =
    session.conf.get(Enabled, "true").trim.equalsIgnoreCase("true")

  def metadataRoot(session: SparkSession): Option[String] =
    session.conf.getOption(MetadataRoot).map(_.trim).filter(_.nonEmpty)

  def cacheTtlMillis(session: SparkSession): Long =
    (session.conf.get(CacheTtlSeconds, "30").trim.toDouble * 1000).toLong
}
