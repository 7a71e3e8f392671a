package io.skipstone

import org.apache.spark.sql.SparkSession

import io.skipstone.query.SkipVerification

/** Session settings users can change at runtime with `SET key=value` or `spark.conf.set`. */
object SkipstoneConf {
  val Enabled = "spark.skipstone.enabled"
  /** Where metadata lives when users cannot (or do not want to) write beside their data. */
  val MetadataRoot = "spark.skipstone.metadataRoot"
  /** How long the driver trusts its cached answer to "which metadata version is current". */
  val CacheTtlSeconds = "spark.skipstone.metadataCacheTtlSeconds"

  /**
   * Which files about to be skipped are first checked against the file system (see
   * `SkipVerification`): `auto` (default) all but a managed table's, which are immutable and
   * listed from its manifest; `always` every one; `listing` none: the size and modification
   * time Spark listed are trusted, for datasets whose files are never rewritten in place.
   */
  val VerifySkippedFiles = "spark.skipstone.verifySkippedFiles"

  def enabled(session: SparkSession): Boolean =
    session.conf.get(Enabled, "true").trim.equalsIgnoreCase("true")

  def metadataRoot(session: SparkSession): Option[String] =
    session.conf.getOption(MetadataRoot).map(_.trim).filter(_.nonEmpty)

  /** Which skipped files are checked on disk; a clear error names any other value. */
  def skipVerification(session: SparkSession): SkipVerification.Policy = {
    val value = session.conf.get(VerifySkippedFiles, "auto").trim.toLowerCase(java.util.Locale.ROOT)
    SkipVerification.Policy.named(value).getOrElse(throw new IllegalArgumentException(
      s"$VerifySkippedFiles must be one of ${SkipVerification.Policy.names.mkString("'", "', '", "'")}, not '$value'"))
  }

  def cacheTtlMillis(session: SparkSession): Long =
    (session.conf.get(CacheTtlSeconds, "30").trim.toDouble * 1000).toLong
}
