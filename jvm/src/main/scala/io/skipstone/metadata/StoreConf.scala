package io.skipstone.metadata

import org.apache.spark.sql.SparkSession

/**
 * The session settings of where metadata lives and how long the driver trusts its cache. Users
 * know them as [[io.skipstone.SkipstoneConf]]'s, which forwards here; they live with the
 * metadata that reads them so that this package needs nothing above it (issue 22).
 */
object StoreConf {
  /** Where metadata lives when users cannot (or do not want to) write beside their data. */
  val MetadataRoot = "spark.skipstone.metadataRoot"
  /**
   * Where the metadata of a dataset that has none yet goes (see [[StoreChoice]]): `files`
   * (default) or a catalog table, `catalog[:<database>[.<table>]]`. A dataset keeps the store
   * it has; a build can name another.
   */
  val MetadataStore = "spark.skipstone.metadataStore"
  /** How long the driver trusts its cached answer to "which metadata version is current". */
  val CacheTtlSeconds = "spark.skipstone.metadataCacheTtlSeconds"

  def metadataRoot(session: SparkSession): Option[String] =
    session.conf.getOption(MetadataRoot).map(_.trim).filter(_.nonEmpty)

  def metadataStore(session: SparkSession): StoreChoice =
    session.conf.getOption(MetadataStore).map(_.trim).filter(_.nonEmpty)
      .fold[StoreChoice](StoreChoice.Files)(StoreChoice.parse(_, MetadataStore))

  def cacheTtlMillis(session: SparkSession): Long =
    (session.conf.get(CacheTtlSeconds, "30").trim.toDouble * 1000).toLong
}
