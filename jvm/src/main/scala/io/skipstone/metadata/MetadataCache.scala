package io.skipstone.metadata

import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.classic.{Dataset => ClassicDataset}

import io.skipstone.SkipstoneConf

/**
 * The driver's memory of each dataset's current metadata version.
 *
 * Planning asks "is this relation indexed?" for every relation of every query, so a warm answer
 * must cost no file-system call: entries are trusted for `spark.skipstone.metadataCacheTtlSeconds`
 * and then revalidated with one listing. A stale entry never causes a wrong answer, because every
 * file's size and modification time are checked against its metadata row before skipping.
 * Builds and drops made through this JVM invalidate the entry at once.
 */
object MetadataCache extends Logging {
  private case class Entry(checkedAtMillis: Long, metadata: Option[LoadedMetadata])
  private val entries = new ConcurrentHashMap[String, Entry]()

  def current(session: SparkSession, datasetRoot: String): Option[LoadedMetadata] = {
    val dir = MetadataStore.metadataDir(session, datasetRoot)
    val key = dir.toString
    val now = System.currentTimeMillis()
    val cached = Option(entries.get(key))
    cached match {
      case Some(e) if now - e.checkedAtMillis < SkipstoneConf.cacheTtlMillis(session) => e.metadata
      case _ =>
        val metadata = try revalidate(session, dir, cached.flatMap(_.metadata)) catch {
          // Planning must not fail because metadata is unreadable (permissions, a corrupt or
          // newer-format version): the dataset counts as not indexed until the entry expires.
          case NonFatal(e) =>
            logWarning(s"Skipstone: cannot read metadata in $dir; all files of $datasetRoot are read", e)
            None
        }
        entries.put(key, Entry(now, metadata))
        metadata
    }
  }

  private def revalidate(session: SparkSession, dir: Path, cached: Option[LoadedMetadata]): Option[LoadedMetadata] =
    (MetadataStore.latestVersion(session, dir), cached) match {
      case (Some(v), Some(m)) if m.version == v => Some(m)
      case (Some(v), _) => Some(load(session, dir, v))
      case (None, _) => None
    }

  def invalidate(session: SparkSession, datasetRoot: String): Unit =
    entries.remove(MetadataStore.metadataDir(session, datasetRoot).toString)

  def clear(): Unit = entries.clear()

  private def load(session: SparkSession, dir: Path, version: Long): LoadedMetadata = {
    val versionDir = MetadataStore.versionDir(dir, version)
    val definition = MetadataStore.readDefinition(session, versionDir)
    val tableDir = MetadataStore.tableDir(versionDir)
    val direct = try MetadataReader.read(session, tableDir) catch {
      case NonFatal(e) =>
        logDebug(s"Skipstone: reading $tableDir on the driver failed; using a Spark job", e)
        None
    }
    val (schema, rows) = direct.getOrElse {
      val table = session.read.parquet(tableDir.toString).asInstanceOf[ClassicDataset[_]]
      // toRdd, not collect(): no SQL execution is registered, so loading metadata inside
      // another query's planning neither nests executions nor counts as "the last query".
      (table.schema, table.queryExecution.toRdd.map(_.copy()).collect())
    }
    logInfo(s"Loaded Skipstone metadata version $version of ${definition.datasetRoot}: ${rows.length} files")
    LoadedMetadata(version, definition, schema, rows)
  }
}
