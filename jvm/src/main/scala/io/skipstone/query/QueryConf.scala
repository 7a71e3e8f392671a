package io.skipstone.query

import org.apache.spark.sql.SparkSession

/**
 * The session settings the query path reads: whether skipping is on, and which skipped files
 * are checked on disk. Users know them as [[io.skipstone.SkipstoneConf]]'s, which forwards
 * here; they live with the query path so that this package needs nothing above it (issue 22).
 */
object QueryConf {
  val Enabled = "spark.skipstone.enabled"

  /**
   * Which files about to be skipped are first checked against the file system (see
   * `SkipVerification`): `auto` (default) all but a managed table's, which are immutable and
   * listed from its manifest; `always` every one; `listing` none: the size, modification
   * time and (object stores) ETag Spark listed are trusted, for datasets whose files are never
   * rewritten in place.
   */
  val VerifySkippedFiles = "spark.skipstone.verifySkippedFiles"

  def enabled(session: SparkSession): Boolean =
    session.conf.get(Enabled, "true").trim.equalsIgnoreCase("true")

  /** Which skipped files are checked on disk; a clear error names any other value. */
  def skipVerification(session: SparkSession): SkipVerification.Policy = {
    val value = session.conf.get(VerifySkippedFiles, "auto").trim.toLowerCase(java.util.Locale.ROOT)
    SkipVerification.Policy.named(value).getOrElse(throw new IllegalArgumentException(
      s"$VerifySkippedFiles must be one of ${SkipVerification.Policy.names.mkString("'", "', '", "'")}, not '$value'"))
  }
}
