package io.skipstone

import org.apache.spark.sql.SparkSession

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
   * listed from its manifest; `always` every one.
   */
  val VerifySkippedFiles = "spark.skipstone.verifySkippedFiles"

  def enabled(session: SparkSession): Boolean =
    session.conf.get(Enabled, "true").trim.equalsIgnoreCase("true")

  def metadataRoot(session: SparkSession): Option[String] =
    session.conf.getOption(MetadataRoot).map(_.trim).filter(_.nonEmpty)

  /** Whether a managed table's files are checked too; a clear error names any other value. */
  def verifyManagedFiles(session: SparkSession): Boolean =
    session.conf.get(VerifySkippedFiles, "auto").trim.toLowerCase(java.util.Locale.ROOT) match {
      case "auto" => false
      case "always" => true
      case other => throw new IllegalArgumentException(
        s"$VerifySkippedFiles must be 'auto' or 'always', not '$other'")
    }

  def cacheTtlMillis(session: SparkSession): Long =
    (session.conf.get(CacheTtlSeconds, "30").trim.toDouble * 1000).toLong
}
