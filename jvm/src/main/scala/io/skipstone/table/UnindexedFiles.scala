package io.skipstone.table

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}

/**
 * Files that other writers dropped into a table's root: table data that no version lists (the
 * unindexed revision). Every query reads them, with no skipping (they have no metadata), until an
 * optimize absorbs them: rewrites their rows into the table's own files and records them as
 * absorbed in its version.
 *
 * One listing of the root, not recursive. Excluded, as Spark's own listing excludes them: names
 * starting with `_` or `.` and directories; and what is the table's own: files a version lists,
 * files Skipstone names (`b<block>-...`: an uncommitted writer's are never read), and files a
 * version absorbed, recognised by content identity: a file replaced under an absorbed name is new
 * table data.
 */
object UnindexedFiles {
  private val SkipstoneDataFile = """b\d+-.*""".r

  def list(conf: Configuration, root: String, snapshot: Snapshot): Seq[FileStatus] = scan(conf, root, snapshot)._1

  /**
   * The unindexed files, oldest first, and the directories other writers made in the root (a
   * partitioned write's `key=value` directories): a managed table has no partitions, so those are
   * reported, never silently ignored nor read as partitions.
   */
  def scan(conf: Configuration, root: String, snapshot: Snapshot): (Seq[FileStatus], Seq[FileStatus]) = {
    val dir = new Path(root)
    val foreign = dir.getFileSystem(conf).listStatus(dir).toSeq.filter { s =>
      val name = s.getPath.getName
      !name.startsWith("_") && !name.startsWith(".")
    }
    val files = foreign.filter { s =>
      val name = s.getPath.getName
      s.isFile && !isSkipstoneFile(name) && !snapshot.livePaths.contains(name) && !snapshot.hasAbsorbed(name, s)
    }.sortBy(s => (s.getModificationTime, s.getPath.getName))
    (files, foreign.filter(_.isDirectory).sortBy(_.getPath.getName))
  }

  /** Names Skipstone gives its data files; no other writer may use them. */
  def isSkipstoneFile(name: String): Boolean = SkipstoneDataFile.pattern.matcher(name).matches()
}
