package io.skipstone.table

import java.time.Instant

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

/**
 * Resolves a time-travel read (`versionAsOf`, `timestampAsOf`) to one version of a managed table.
 *
 * Vacuum never deletes log entries, only the files no retained version lists; so a version is
 * readable while every file its entry lists is still in the root with the size it was committed
 * with. That is checked with one listing of the root before the read is planned: a read of a
 * vacuumed version fails by name here rather than reading part of it (or failing half way
 * through with a missing file).
 */
object TimeTravel {

  def snapshot(conf: Configuration, root: String, request: VersionRequest): Snapshot = {
    val versions = TableLog.versions(conf, root)
    lazy val onDisk = presentFiles(conf, root)
    lazy val available = versions.filter(v => readable(TableLog.read(conf, root, v), onDisk))
    val chosen = request match {
      case VersionRequest.AtVersion(v) =>
        if (!versions.contains(v)) throw unavailable(root,
          s"has no version $v (its log holds versions ${ranges(versions)})", available)
        TableLog.read(conf, root, v)
      case VersionRequest.AsOfTime(micros, asWritten) =>
        // the highest version committed at or before the time, as Delta resolves timestampAsOf
        versions.reverseIterator.map(TableLog.read(conf, root, _)).find(_.timestampMillis * 1000L <= micros)
          .getOrElse(throw unavailable(root, s"has no version committed at or before '$asWritten' " +
            s"(${Instant.ofEpochMilli(Math.floorDiv(micros, 1000L))}): " +
            versions.headOption.fold("it has no versions")(first =>
              s"its first, version $first, was committed at ${Instant.ofEpochMilli(TableLog.read(conf, root, first).timestampMillis)}"),
            available))
      case VersionRequest.Newest => throw new IllegalArgumentException("the newest version is no time travel")
    }
    if (!readable(chosen, onDisk)) {
      val missing = chosen.files.filterNot(f => onDisk.get(f.path).contains(f.size))
      throw unavailable(root, s"cannot read version ${chosen.version}: a vacuum removed it (${missing.size} of its " +
        s"${chosen.files.size} files are gone, e.g. ${missing.head.path})", available)
    }
    chosen
  }

  /** A version is readable while all its files are in the root with their committed sizes. */
  private def readable(snapshot: Snapshot, onDisk: Map[String, Long]): Boolean =
    snapshot.files.forall(f => onDisk.get(f.path).contains(f.size))

  /** The root's files by name: one listing, however many versions are checked against it. */
  private def presentFiles(conf: Configuration, root: String): Map[String, Long] = {
    val dir = new Path(root)
    Try(dir.getFileSystem(conf).listStatus(dir).iterator.filter(_.isFile).map(s => s.getPath.getName -> s.getLen).toMap)
      .getOrElse(Map.empty)
  }

  private def unavailable(root: String, why: String, available: => Seq[Long]) =
    new VersionUnavailable(s"Skipstone managed table $root $why; versions available: " +
      (if (available.isEmpty) "none" else ranges(available)))

  /** "1-3, 5, 7-9": versions as a reader can take them in. */
  private[table] def ranges(versions: Seq[Long]): String =
    versions.sorted.foldLeft(List.empty[(Long, Long)]) {
      case ((from, to) :: done, v) if v == to + 1 => (from, v) :: done
      case (done, v) => (v, v) :: done
    }.reverse.map { case (from, to) => if (from == to) s"$from" else s"$from-$to" }.mkString(", ")
}

/** A time-travel read of a version that does not exist or that a vacuum removed; the message lists those available. */
class VersionUnavailable(message: String) extends ManagedTableReadRefused(message)
