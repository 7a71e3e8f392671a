package io.skipstone.metadata

import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

import io.skipstone.SkipstoneConf

/**
 * The driver's memory of each dataset's current metadata version.
 *
 * Planning asks "is this relation indexed?" for every relation of every query, so a warm answer
 * must cost no file-system call: entries are trusted for `spark.skipstone.metadataCacheTtlSeconds`
 * and then revalidated with one listing. A stale entry never causes a wrong answer, because every
 * file is checked against its metadata row's identity before it is skipped.
 * Builds and drops made through this JVM invalidate the entry at once.
 */
object MetadataCache extends Logging {
  /**
   * What is known of a dataset's newest version: its number (None: not indexed) and its
   * metadata, or None when that version is unusable. Unusable versions are decided once: the
   * warning is logged when the version is first seen, not on every query.
   */
  private case class Entry(checkedAtMillis: Long, version: Option[Long], metadata: Option[LoadedMetadata])
  private val entries = new ConcurrentHashMap[String, Entry]()

  def current(session: SparkSession, datasetRoot: String): Option[LoadedMetadata] = {
    val dir = MetadataStore.metadataDir(session, datasetRoot)
    val key = dir.toString
    val now = System.currentTimeMillis()
    val cached = Option(entries.get(key))
    cached match {
      case Some(e) if now - e.checkedAtMillis < SkipstoneConf.cacheTtlMillis(session) => e.metadata
      case _ =>
        val entry = try revalidate(session, dir, cached, now) catch {
          // Planning must not fail because the metadata directory cannot be listed: the
          // dataset counts as not indexed until the entry expires.
          case NonFatal(e) =>
            logWarning(s"Skipstone: cannot list metadata in $dir; all files of $datasetRoot are read: ${e.getMessage}")
            Entry(now, None, None)
        }
        entries.put(key, entry)
        entry.metadata
    }
  }

  private def revalidate(session: SparkSession, dir: Path, cached: Option[Entry], now: Long): Entry =
    MetadataStore.latestVersion(session, dir) match {
      case v @ Some(_) if cached.exists(_.version == v) => cached.get.copy(checkedAtMillis = now)
      case Some(v) => Entry(now, Some(v), loadOrWarn(session, dir, v))
      case None => Entry(now, None, None)
    }

  /**
   * A given version of the dataset's metadata: the one a managed table's version records for
   * its files. The cached newest version when it is that one (the usual case); otherwise read
   * from disk, uncached: versions are immutable, and only a query pinned to a table version
   * whose metadata is no longer the newest asks for one.
   */
  def at(session: SparkSession, datasetRoot: String, version: Long): Option[LoadedMetadata] =
    current(session, datasetRoot).filter(_.version == version).orElse(
      loadOrWarn(session, MetadataStore.metadataDir(session, datasetRoot), version))

  def invalidate(session: SparkSession, datasetRoot: String): Unit =
    entries.remove(MetadataStore.metadataDir(session, datasetRoot).toString)

  def clear(): Unit = entries.clear()

  /**
   * The version, or None if it cannot be used (unreadable, corrupt, written by a newer
   * Skipstone, base columns missing). Read on the driver with Spark's Parquet reader: no Spark
   * job ever starts inside a query's planning for metadata.
   */
  private def loadOrWarn(session: SparkSession, dir: Path, version: Long): Option[LoadedMetadata] =
    try {
      val loaded = load(session, dir, version)
      loaded.problems.foreach(p => logWarning(s"Skipstone: metadata version $version in $dir: $p; that index is not used"))
      Some(loaded)
    } catch {
      case NonFatal(e) =>
        logWarning(s"Skipstone: metadata version $version in $dir cannot be used (${e.getMessage}); " +
          "the dataset's files are all read until it is rebuilt")
        None
    }

  private def load(session: SparkSession, dir: Path, version: Long): LoadedMetadata = {
    val versionDir = MetadataStore.versionDir(dir, version)
    val definition = MetadataStore.readDefinition(session, versionDir)
    val tableDir = MetadataStore.tableDir(versionDir)
    val (schema, rows) = MetadataReader.read(session, tableDir).getOrElse(
      throw new IllegalStateException(s"$tableDir was not written by Spark (no Spark schema in its footers)"))
    val problems = MetadataTypes.baseProblems(schema)
    if (problems.nonEmpty) throw new IllegalStateException(problems.mkString("; "))
    logInfo(s"Loaded Skipstone metadata version $version of ${definition.datasetRoot}: ${rows.length} files")
    LoadedMetadata(version, definition, schema, rows)
  }
}
