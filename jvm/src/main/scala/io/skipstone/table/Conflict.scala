package io.skipstone.table

/**
 * Why a change planned on one version cannot be applied to the version that won the race, as
 * data: a writer decides whether to try again from what it read, never from an error's text.
 */
sealed abstract class Conflict(val why: String)

object Conflict {
  case object TableCreated extends Conflict("the table was created")
  case object FilesRemoved extends Conflict("it removed files this operation rewrites")
  /** The only conflict a writer that routes rows through the current layout resolves: route them again. */
  case object LayoutChanged extends Conflict("it changed the layout")
  case object SameAbsorbed extends Conflict("it absorbed the same unindexed files")
  /** Not a version but another writer: it replaced or removed a file while it was being absorbed. */
  case object AbsorbedFileChanged extends Conflict("another writer replaced or removed a file it absorbs")
}

/**
 * A commit lost to a concurrent one and wrote nothing. `conflict` is what conflicted; None when
 * the writer gave up after losing too many times.
 */
class ConcurrentTableChange(message: String, val conflict: Option[Conflict] = None) extends RuntimeException(message)
