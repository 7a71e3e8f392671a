package io.skipstone.query

/** What skipping did to one listing of one dataset. */
case class ListingStats(
    datasetRoot: String,
    filesTotal: Long,
    filesSkipped: Long,
    bytesTotal: Long,
    bytesSkipped: Long,
    /** files read because they had no metadata, or had changed since indexing */
    filesUnindexed: Long,
    /** predicate parts no index could use: why more was not skipped */
    unanswered: Seq[String],
    /** per index, the files it alone ruled out (among the skipped ones) */
    skippedByIndex: Seq[(String, Long)] = Seq.empty,
    /** rows in the skipped files, from their metadata */
    rowsSkipped: Long = 0L,
    /** files read because a partial index's WHERE holds for none of their rows (docs/partial-indexes.md) */
    filesOutsideWhere: Long = 0L) {

  def describe: String =
    s"skipped $filesSkipped of $filesTotal files ($bytesSkipped of $bytesTotal bytes)" +
      (if (filesUnindexed > 0) s", $filesUnindexed unindexed" else "") +
      (if (filesOutsideWhere > 0) s", $filesOutsideWhere outside the index's WHERE" else "")
}
