package io.skipstone.table

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.Row
import org.apache.spark.sql.types.StructType

/**
 * A managed table's log as tables users can query, in the spirit of Iceberg's `t.files` and
 * `t.snapshots`: one row per file of a version, with the version that added it, and one row per
 * version, with what it changed. Both are computed from the log alone (docs/table-format.md):
 * every entry lists all live files, so what a version changed is its difference from the one
 * before, and entries are read one at a time so that a long log is never held whole.
 */
object LogTables {
  val FilesSchema: StructType = StructType.fromDDL("path STRING, size BIGINT, rows BIGINT, block BIGINT, " +
    "modification_time TIMESTAMP, version_added BIGINT, version BIGINT")

  val VersionsSchema: StructType = StructType.fromDDL("version BIGINT, timestamp TIMESTAMP, operation STRING, " +
    "files_added BIGINT, files_removed BIGINT, bytes_added BIGINT, bytes_removed BIGINT, rows_added BIGINT, " +
    "rows_removed BIGINT, files BIGINT, bytes BIGINT, rows BIGINT, metadata_version BIGINT")

  /** What one version changed: the files it lists that its predecessor did not, and the reverse. */
  final case class VersionChange(snapshot: Snapshot, added: Seq[DataFile], removed: Seq[DataFile])

  /** Each version's change, oldest first; the first is measured against the empty table. */
  def changes(snapshots: Iterator[Snapshot]): Iterator[VersionChange] =
    snapshots.scanLeft((Snapshot.Empty, Option.empty[VersionChange])) { case ((before, _), s) =>
      (s, Some(VersionChange(s, s.files.filterNot(f => before.livePaths.contains(f.path)),
        before.files.filterNot(f => s.livePaths.contains(f.path)))))
    }.flatMap(_._2)

  /**
   * The files of the last of `snapshots` (versions in order, up to and including it), each with
   * the version since which every version lists it: the one that added it.
   */
  def filesAdded(snapshots: Iterator[Snapshot]): Seq[(DataFile, Long)] = {
    val (last, since) = snapshots.foldLeft((Snapshot.Empty, Map.empty[String, Long])) { case ((_, since), s) =>
      (s, s.files.iterator.map(f => f.path -> since.getOrElse(f.path, s.version)).toMap)
    }
    last.files.map(f => f -> since(f.path))
  }

  /**
   * The rows of `skipstone_files`: the files of `version` (default: the newest). A vacuumed
   * version is listed too (its entry stays; only its files are gone), an unknown one refused.
   */
  def files(conf: Configuration, root: String, version: Option[Long]): Seq[Row] = {
    val all = TableLog.versions(conf, root)
    val upTo = version.getOrElse(all.lastOption.getOrElse(0L))
    if (!all.contains(upTo)) {
      throw new IllegalArgumentException(s"$root has no version $upTo (its log holds versions ${TimeTravel.ranges(all)})")
    }
    filesAdded(all.filter(_ <= upTo).iterator.map(TableLog.read(conf, root, _))).map { case (f, added) =>
      Row(f.path, f.size, f.rows, f.block, new java.sql.Timestamp(f.modificationTime), added, upTo)
    }
  }

  /** The rows of `skipstone_versions`, oldest first. */
  def versions(conf: Configuration, root: String): Seq[Row] =
    changes(TableLog.versions(conf, root).iterator.map(TableLog.read(conf, root, _))).map { c =>
      val s = c.snapshot
      Row(s.version, new java.sql.Timestamp(s.timestampMillis), s.operation, c.added.size.toLong, c.removed.size.toLong,
        c.added.map(_.size).sum, c.removed.map(_.size).sum, c.added.map(_.rows).sum, c.removed.map(_.rows).sum,
        s.files.size.toLong, s.totalBytes, s.totalRows, s.metadataVersion.map(Long.box).orNull)
    }.toSeq

}
