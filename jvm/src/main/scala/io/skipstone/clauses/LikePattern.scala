package io.skipstone.clauses

import scala.annotation.tailrec

/**
 * What a LIKE pattern says about the start and end of the strings it matches.
 *
 * @param prefix   the literal characters before the first wildcard
 * @param suffix   the literal characters after the last wildcard
 * @param exact    the whole pattern when it has no wildcard (LIKE is then `=`)
 * @param onlyTrailingPercent the pattern is `prefix%`: it matches exactly the strings starting with `prefix`
 * @param onlyLeadingPercent  the pattern is `%suffix`
 */
case class LikePattern(
    prefix: String,
    suffix: String,
    exact: Option[String],
    onlyTrailingPercent: Boolean,
    onlyLeadingPercent: Boolean)

object LikePattern {
  private sealed trait Token
  private case class Chars(c: Char) extends Token
  private case class Wildcard(c: Char) extends Token
  private val Replacement = '\uFFFD'

  /** None for a pattern Spark would reject (an escape before an ordinary character). */
  def parse(pattern: String, escape: Char): Option[LikePattern] =
    tokens(pattern.toList, escape, Vector.empty).map { ts =>
      def literal(part: Seq[Token]) = part.collect { case Chars(c) => c }.mkString
      val prefix = literal(ts.takeWhile(_.isInstanceOf[Chars]))
      val suffix = literal(ts.reverse.takeWhile(_.isInstanceOf[Chars]).reverse)
      val wildcards = ts.collect { case w: Wildcard => w }
      LikePattern(
        prefix,
        suffix,
        if (wildcards.isEmpty) Some(prefix) else None,
        wildcards == Seq(Wildcard('%')) && ts.lastOption.contains(Wildcard('%')),
        wildcards == Seq(Wildcard('%')) && ts.headOption.contains(Wildcard('%')))
    }

  @tailrec
  private def tokens(rest: List[Char], escape: Char, acc: Vector[Token]): Option[Vector[Token]] = rest match {
    case Nil => Some(acc)
    case `escape` :: c :: tail if c == '%' || c == '_' || c == escape => tokens(tail, escape, acc :+ Chars(c))
    case `escape` :: _ => None
    case ('%' | '_') :: tail => tokens(tail, escape, acc :+ Wildcard(rest.head))
    // Spark's LIKE matches decoded strings, where U+FFFD stands for any bytes that are not
    // valid UTF-8: as a literal it would claim bytes (EF BF BD) that the matching rows need
    // not hold. Here it matches what it may stand for, as a wildcard does.
    case Replacement :: tail => tokens(tail, escape, acc :+ Wildcard(Replacement))
    case c :: tail => tokens(tail, escape, acc :+ Chars(c))
  }
}
