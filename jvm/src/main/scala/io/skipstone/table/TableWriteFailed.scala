package io.skipstone.table

/**
 * A table write failed and committed nothing; its message says what, and why in the user's
 * terms: the failure's own message and its causes', not a stack of wrappers.
 */
class TableWriteFailed(message: String, cause: Throwable) extends RuntimeException(message, cause)

object TableWriteFailed {
  def apply(what: String, cause: Throwable): TableWriteFailed =
    new TableWriteFailed(s"$what failed and committed nothing: ${reason(cause)}", cause)

  /** The first line of each distinct message down the cause chain (at most four). */
  def reason(e: Throwable): String = {
    val messages = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(8)
      .flatMap(t => Option(t.getMessage).map(_.linesIterator.nextOption().getOrElse("")).filter(_.nonEmpty))
      .toSeq.distinct.take(4)
    if (messages.isEmpty) e.getClass.getSimpleName else messages.mkString("; caused by: ")
  }
}
