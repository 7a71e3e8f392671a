package io.skipstone.table

import org.json4s.JsonAST.{JNothing, JObject, JValue}

/**
 * One version of a managed table: everything a reader needs, in one log entry.
 *
 * Every version lists all live files (no replay of earlier entries): a reader resolves a
 * version with one read, and a version that no longer lists a file is all a rewrite needs.
 *
 * @param layout          the partitioning tree in `skipstone.layout`'s JSON form (opaque here)
 * @param metadataVersion the skipping-metadata version built for these files, if any
 * @param commitInfo      what the operation reports in the history (benefit, cost, rows rewritten...)
 * @param absorbed        files other writers dropped into the root whose rows an optimize rewrote
 *                        into this version's own files, by content identity: readers no longer
 *                        read them while they hold those bytes
 */
case class Snapshot(
    version: Long,
    timestampMillis: Long,
    operation: String,
    files: Seq[DataFile],
    layout: JValue,
    metadataVersion: Option[Long],
    properties: Map[String, String],
    commitInfo: JObject,
    absorbed: Set[AbsorbedFile] = Set.empty) {

  lazy val livePaths: Set[String] = files.iterator.map(_.path).toSet
  /** The files as Spark lists them, built by the first query on this version (ManifestFileIndex). */
  private[table] val listing = new java.util.concurrent.atomic.AtomicReference[ManifestFileIndex.Listing]()
  def totalBytes: Long = files.iterator.map(_.size).sum
  def totalRows: Long = files.iterator.map(_.rows).sum
  /** Whether the other writer's file `status`, named `name` in the root, is one this version absorbed. */
  def hasAbsorbed(name: String, status: org.apache.hadoop.fs.FileStatus): Boolean =
    absorbed.exists(a => a.path == name && a.matches(status))
}

object Snapshot {
  /** The state before version 1: what a create applies its change to. */
  val Empty: Snapshot = Snapshot(0L, 0L, "NONE", Seq.empty, JNothing, None, Map.empty, JObject())
}

/**
 * What an operation changes, applied to the version it read. Kept as data so that a writer
 * that lost a race can apply the same change to the winner's version when they do not conflict.
 *
 * @param layout   None keeps the layout of the version it is applied to
 * @param absorbed files other writers dropped into the root whose rows `added` now holds
 */
case class TableChange(
    operation: String,
    added: Seq[DataFile],
    removed: Set[String],
    layout: Option[JValue],
    metadataVersion: Option[Long],
    properties: Map[String, String],
    commitInfo: JObject,
    absorbed: Set[AbsorbedFile] = Set.empty) {

  def applyTo(base: Snapshot, version: Long, nowMillis: Long): Snapshot = {
    val missing = removed -- base.livePaths
    require(missing.isEmpty, s"cannot remove files that version ${base.version} does not list: ${missing.take(3).mkString(", ")}")
    val duplicate = added.map(_.path).filter(base.livePaths.contains)
    require(duplicate.isEmpty, s"files already live in version ${base.version}: ${duplicate.take(3).mkString(", ")}")
    Snapshot(version, nowMillis, operation, base.files.filterNot(f => removed.contains(f.path)) ++ added,
      layout.getOrElse(base.layout), metadataVersion.orElse(base.metadataVersion), base.properties ++ properties,
      // a name absorbed again is a replaced file: only its newest identity is absorbed
      commitInfo, base.absorbed.filterNot(a => absorbed.exists(_.path == a.path)) ++ absorbed)
  }
}
