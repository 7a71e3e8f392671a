package io.skipstone

import org.apache.spark.sql.SparkSession

import io.skipstone.metadata.StoreConf
import io.skipstone.query.{QueryConf, SkipVerification}

/**
 * Session settings users can change at runtime with `SET key=value` or `spark.conf.set`.
 *
 * Each setting is owned by the package that reads it ([[io.skipstone.metadata.StoreConf]],
 * [[io.skipstone.query.QueryConf]]) and forwarded here, so that no package below the root
 * depends on the root (issue 22).
 */
object SkipstoneConf {
  val Enabled: String = QueryConf.Enabled
  /** Where metadata lives when users cannot (or do not want to) write beside their data. */
  val MetadataRoot: String = StoreConf.MetadataRoot
  /** Where a dataset's metadata goes when it has none yet: `files` or `catalog[:<database>[.<table>]]`. */
  val MetadataStore: String = StoreConf.MetadataStore
  /** How long the driver trusts its cached answer to "which metadata version is current". */
  val CacheTtlSeconds: String = StoreConf.CacheTtlSeconds

  /**
   * Which files about to be skipped are first checked against the file system (see
   * `SkipVerification`): `auto` (default) all but a managed table's, which are immutable and
   * listed from its manifest; `always` every one; `listing` none: the size, modification
   * time and (object stores) ETag Spark listed are trusted, for datasets whose files are never
   * rewritten in place.
   */
  val VerifySkippedFiles: String = QueryConf.VerifySkippedFiles

  def enabled(session: SparkSession): Boolean = QueryConf.enabled(session)

  def metadataRoot(session: SparkSession): Option[String] = StoreConf.metadataRoot(session)

  /** Which skipped files are checked on disk; a clear error names any other value. */
  def skipVerification(session: SparkSession): SkipVerification.Policy = QueryConf.skipVerification(session)

  def cacheTtlMillis(session: SparkSession): Long = StoreConf.cacheTtlMillis(session)
}
