package io.skipstone.table

import java.nio.charset.StandardCharsets

import scala.annotation.tailrec

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import io.skipstone.metadata.DirectoryListing

/**
 * The log of a managed table: `<root>/_skipstone/log/<version, 20 digits>.json`, one entry per
 * commit, each a whole [[Snapshot]]. A commit is the put-if-absent creation of the next entry.
 */
object TableLog {
  val ContainerDir = "_skipstone"
  private val EntryName = """(\d{20})\.json""".r
  /** Rebase attempts before a writer that keeps losing gives up. */
  val MaxAttempts = 20

  def logDir(root: String): Path = new Path(new Path(root, ContainerDir), "log")
  def entry(root: String, version: Long): Path = new Path(logDir(root), f"$version%020d.json")

  def versions(conf: Configuration, root: String): Seq[Long] = {
    val dir = logDir(root)
    // one listing, no existence check first: on object stores that check costs requests of its own
    val entries = DirectoryListing.orEmpty(dir.getFileSystem(conf), dir)
    entries.map(_.getPath.getName).collect { case EntryName(n) => n.toLong }.sorted
  }

  def latestVersion(conf: Configuration, root: String): Option[Long] = versions(conf, root).lastOption

  /**
   * Throws [[UnsafeCommit]] when `root`'s store cannot publish a log entry only if it is absent
   * (see [[PutIfAbsent]]): writers ask before they write anything.
   */
  def requireSafeCommits(conf: Configuration, root: String): Unit = {
    val probe = entry(root, 1)
    val fs = probe.getFileSystem(conf)
    PutIfAbsent.method(fs, fs.makeQualified(probe), conf)
  }

  def read(conf: Configuration, root: String, version: Long): Snapshot = {
    val file = entry(root, version)
    val in = file.getFileSystem(conf).open(file)
    val snapshot = try SnapshotJson.read(new String(in.readAllBytes(), StandardCharsets.UTF_8)) finally in.close()
    require(snapshot.version == version, s"log entry $file says it is version ${snapshot.version}")
    snapshot
  }

  def latest(conf: Configuration, root: String): Option[Snapshot] = latestVersion(conf, root).map(read(conf, root, _))

  /**
   * Commits `change` made against version `readVersion` (0: the table does not exist yet) and
   * returns the new snapshot. If others committed since, the change is applied to the newest
   * version instead, unless they conflict (see [[conflict]]): then nothing is written and a
   * [[ConcurrentTableChange]] says why.
   */
  def commit(conf: Configuration, root: String, readVersion: Long, change: TableChange): Snapshot = {
    val read = if (readVersion == 0) Snapshot.Empty else TableLog.read(conf, root, readVersion)

    @tailrec def attempt(base: Snapshot, tries: Int): Snapshot = {
      val next = change.applyTo(base, base.version + 1, System.currentTimeMillis())
      if (PutIfAbsent.write(conf, entry(root, next.version), SnapshotJson.write(next))) {
        Failpoints.check("log.afterPublish") // the entry is published: whatever fails now, it is committed
        next
      }
      else if (tries >= MaxAttempts) throw new ConcurrentTableChange(s"$root: gave up after $tries lost commits")
      else {
        val winner = latest(conf, root).getOrElse(Snapshot.Empty)
        conflict(read, winner, change).foreach(c => throw new ConcurrentTableChange(
          s"$root: version ${winner.version} was committed concurrently and ${c.why}; " +
            s"this ${change.operation} based on version ${read.version} was not committed", Some(c)))
        attempt(winner, tries + 1)
      }
    }
    attempt(read, 1)
  }

  /**
   * Why `change` (planned on `read`) cannot be applied to `winner`, or None. A change commutes
   * with the winner's when every file it removes is still live, if it replaces the layout, the
   * layout it planned on is still the current one, and no unindexed file was absorbed by both.
   * A change that conflicts in several ways is told the conflict it cannot resolve by retrying.
   */
  def conflict(read: Snapshot, winner: Snapshot, change: TableChange): Option[Conflict] =
    if (read.version == 0) Some(Conflict.TableCreated)
    else if (!change.removed.subsetOf(winner.livePaths)) Some(Conflict.FilesRemoved)
    // the winner absorbed a file of a name this change absorbs (the same bytes, or their predecessor)
    else if (change.absorbed.exists(a => absorbedAs(winner, a.path) != absorbedAs(read, a.path)))
      Some(Conflict.SameAbsorbed)
    // last: a writer resolves this one by routing its rows again, which none of the above allows
    else if (change.layout.isDefined && winner.layout != read.layout) Some(Conflict.LayoutChanged)
    else None

  private def absorbedAs(s: Snapshot, name: String): Option[AbsorbedFile] = s.absorbed.find(_.path == name)
}
