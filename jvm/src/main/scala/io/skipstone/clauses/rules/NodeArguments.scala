package io.skipstone.clauses.rules

import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * What makes two expression nodes with the same children compute the same value: their class,
 * their result type and the arguments that are not children (a cast's target type and eval
 * mode, a LIKE's escape character). A time zone is an Option and left out: Spark sets it during
 * analysis, so a freshly built node has none yet.
 */
object NodeArguments {
  def sameNode(a: Expression, b: Expression): Boolean =
    a.getClass == b.getClass && a.children.length == b.children.length &&
      of(a) == of(b) && scala.util.Try(a.dataType == b.dataType).getOrElse(false)

  /** A node's arguments that are not children. */
  def of(e: Expression): Seq[Any] = e.productIterator.filter {
    case _: Expression | _: Iterable[_] | _: Option[_] => false
    case _ => true
  }.toSeq
}
