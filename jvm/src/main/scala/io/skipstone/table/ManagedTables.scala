package io.skipstone.table

import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import org.apache.hadoop.fs.FileStatus

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

import io.skipstone.metadata.StoreConf

/**
 * The driver's memory of each root's newest table version, so that planning a query over a
 * plain directory costs no file-system call while the entry is fresh. Entries are trusted for
 * `spark.skipstone.metadataCacheTtlSeconds` (a query may be pinned to a version that is that
 * old, never to a mix of versions); commits made through this JVM invalidate them at once.
 */
object ManagedTables extends Logging {
  private case class Entry(checkedAtMillis: Long, snapshot: Option[Snapshot], unindexed: Seq[FileStatus],
                           directories: Seq[FileStatus] = Nil)
  private val entries = new ConcurrentHashMap[String, Entry]()

  def latest(session: SparkSession, root: String): Option[Snapshot] = resolve(session, root).map(_._1)

  /** The newest version and the unindexed files in the root (listed with it, as old as it). */
  def resolve(session: SparkSession, root: String): Option[(Snapshot, Seq[FileStatus])] = {
    val now = System.currentTimeMillis()
    val entry = Option(entries.get(root)) match {
      case Some(e) if now - e.checkedAtMillis < StoreConf.cacheTtlMillis(session) => e
      case cached =>
        val fresh = try {
          val conf = session.sessionState.newHadoopConf()
          val snapshot = TableLog.latestVersion(conf, root).map { v =>
            cached.flatMap(_.snapshot).filter(_.version == v).getOrElse(TableLog.read(conf, root, v))
          }
          val (files, directories) = snapshot.map(UnindexedFiles.scan(conf, root, _)).getOrElse((Nil, Nil))
          Entry(now, snapshot, files, directories)
        } catch {
          // An unreadable log must not turn into "not a managed table" silently: that would list
          // the directory and read files no version holds. Fail the query with the reason.
          case NonFatal(e) => throw new IllegalStateException(s"Skipstone: cannot read the table log of $root: ${e.getMessage}", e)
        }
        entries.put(root, fresh)
        fresh
    }
    entry.snapshot.map(s => (s, entry.unindexed))
  }

  /** Directories other writers made in the root, as of the last resolution of `root`. */
  def foreignDirectories(root: String): Seq[FileStatus] = Option(entries.get(root)).fold(Seq.empty[FileStatus])(_.directories)

  def invalidate(root: String): Unit = entries.remove(root)

  /** Forget every root's entry: the next query on each lists its root and reads its log again. */
  def clear(): Unit = entries.clear()
}
