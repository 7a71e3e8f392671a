package io.skipstone.table

/**
 * The compaction strategy's choice: blocks whose rows are spread over more files than they need
 * (an append adds one file per block it routes rows to), most files first, within the batch.
 *
 * A block over twice its target size is split into several files on purpose (a file holds at
 * most twice the target), so "more files than its rows need" is more than rows / (2 x target),
 * rounded down, plus one.
 */
final case class CompactionSelection(blocks: Seq[Long], files: Seq[DataFile], bytes: Long, reason: String) {
  def rows: Long = files.iterator.map(_.rows).sum
}

object CompactionSelection {
  /** The blocks of `snapshot` to compact now, or None when none is fragmented. */
  def of(snapshot: Snapshot, targetRows: Double, batchBytes: Long): Option[CompactionSelection] = {
    val fragmented = snapshot.files.groupBy(_.block).toSeq
      .filter { case (_, files) => files.size > math.floor(files.map(_.rows).sum / (2 * targetRows)).toLong + 1 }
      .sortBy { case (block, files) => (-files.size, block) }
    // the first block always fits, however large: an iteration must make progress
    val chosen = fragmented.zip(fragmented.scanLeft(0L)(_ + _._2.map(_.size).sum).tail)
      .zipWithIndex.takeWhile { case ((_, total), i) => i == 0 || total <= batchBytes }.map(_._1._1)
    if (chosen.isEmpty) None
    else {
      val files = chosen.flatMap(_._2)
      val bytes = files.map(_.size).sum
      Some(CompactionSelection(chosen.map(_._1), files, bytes,
        s"${chosen.size} of ${fragmented.size} fragmented blocks (${files.size} files, $bytes bytes, batch $batchBytes)"))
    }
  }
}
