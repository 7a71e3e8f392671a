package io.skipstone.table

import org.apache.hadoop.conf.Configuration

/**
 * The unindexed strategy's choice: files other writers dropped into the root (see
 * [[UnindexedFiles]]), modified at or after `fromMillis`, oldest first, within the batch.
 *
 * @param paths absolute paths, as the root lists them
 */
final case class UnindexedSelection(paths: Seq[String], bytes: Long, reason: String, files: Seq[org.apache.hadoop.fs.FileStatus])

object UnindexedSelection {
  def of(conf: Configuration, root: String, snapshot: Snapshot, fromMillis: Long,
         batchBytes: Long): Option[UnindexedSelection] = {
    val candidates = UnindexedFiles.list(conf, root, snapshot).filter(_.getModificationTime >= fromMillis)
    // the first file always fits, however large: an iteration must make progress
    val chosen = candidates.zip(candidates.scanLeft(0L)(_ + _.getLen).tail)
      .zipWithIndex.takeWhile { case ((_, total), i) => i == 0 || total <= batchBytes }.map(_._1._1)
    if (chosen.isEmpty) None
    else {
      val bytes = chosen.map(_.getLen).sum
      Some(UnindexedSelection(chosen.map(_.getPath.toString), bytes,
        s"${chosen.size} of ${candidates.size} unindexed files, oldest first, $bytes bytes (batch $batchBytes)", chosen))
    }
  }
}
