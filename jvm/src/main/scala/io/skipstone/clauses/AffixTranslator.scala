package io.skipstone.clauses

import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.Literal.FalseLiteral
import org.apache.spark.sql.types.StringType
import org.apache.spark.unsafe.types.UTF8String

import io.skipstone.clauses.Clause.or
import io.skipstone.clauses.Comparison.{Eq, EqNullSafe}
import io.skipstone.clauses.Leaves.{ColumnComparison, ColumnInList}
import io.skipstone.metadata.{ColumnPath, IndexSpec, LoadedMetadata}

/** Which end of a string an affix index keeps, in characters (code points, as `substring`). */
sealed trait Side {
  def cut(s: UTF8String, length: Int): UTF8String
  def matches(affix: Expression, literal: Expression): Expression
}
object Side {
  case object Start extends Side {
    def cut(s: UTF8String, length: Int): UTF8String = s.substringSQL(1, length)
    def matches(affix: Expression, literal: Expression): Expression = StartsWith(affix, literal)
  }
  case object End extends Side {
    def cut(s: UTF8String, length: Int): UTF8String = s.substringSQL(-length, length)
    def matches(affix: Expression, literal: Expression): Expression = EndsWith(affix, literal)
  }
}

/**
 * Prefix and Suffix indexes: per file the distinct first (last) `length` characters of a string
 * column's values (whole values when shorter), and its NULL count.
 *
 * A stored affix `q` stands for the values that start (end) with `q`, or for `q` itself when
 * it is shorter than `length`. So a value starting with `p` needs some `q` starting with the
 * first `length` characters of `p`; `= v` needs `q` = the affix of `v`; and when `v` is shorter
 * than `length`, `q` = `v` means the value is `v`, which makes `<>`/`NOT IN` answerable too.
 */
case class AffixTranslator(index: IndexSpec, metadata: LoadedMetadata, resolver: Resolver, side: Side)
  extends LeafTranslator {

  private val column = index.paths.head
  private val length = index.params("length").toInt
  private val affixes = metadata.attribute(index.metadataColumns("affixes"))
  private val nulls = NullCounts.of(index, metadata)

  private object Col {
    def unapply(e: Expression): Boolean =
      e.dataType == StringType && ColumnPath.isColumn(e, column, resolver)
  }
  private object Str {
    def unapply(e: Expression): Option[UTF8String] = Leaves.constant(e).map(_.value).collect { case s: UTF8String => s }
  }

  override def translate(leaf: Expression): Option[LeafClauses] =
    nulls.answer(leaf, Col.unapply).orElse(leaf match {
      case StartsWith(Col(), Str(p)) if side == Side.Start => Some(startsOrEnds(p))
      case EndsWith(Col(), Str(p)) if side == Side.End => Some(startsOrEnds(p))
      case Like(Col(), Str(pattern), escape) => LikePattern.parse(pattern.toString, escape).map(like)
      case ColumnComparison(op @ (Eq | EqNullSafe), Col(), Str(v)) => Some(equalTo(v, nullSafe = op == EqNullSafe))
      case ColumnInList(Col(), values, listHasNull) => Some(in(values.map(_.asInstanceOf[UTF8String]), listHasNull))
      case _ => None
    })

  private def slot = BoundReference(0, StringType, nullable = true)
  private def lit(s: UTF8String) = Literal.create(s, StringType)
  private def anyAffix(test: Expression, outcome: Boolean): Expression =
    AnyValueSatisfies(affixes, ValueTest(test, StringType), outcome)
  private def isShort(s: UTF8String) = s.numChars() < length

  /** Values starting (ending) with `p`. */
  private def startsOrEnds(p: UTF8String): LeafClauses = LeafClauses(
    anyAffix(side.matches(slot, lit(side.cut(p, length))), outcome = true),
    if (p.numChars() <= length) anyAffix(side.matches(slot, lit(p)), outcome = false) else nulls.hasNonNull)

  private def like(pattern: LikePattern): LeafClauses = pattern.exact match {
    case Some(v) => equalTo(UTF8String.fromString(v), nullSafe = false)
    case None =>
      val (literal, onlyThat) = side match {
        case Side.Start => (pattern.prefix, pattern.onlyTrailingPercent)
        case Side.End => (pattern.suffix, pattern.onlyLeadingPercent)
      }
      val clauses = startsOrEnds(UTF8String.fromString(literal))
      if (literal.isEmpty) LeafClauses(nulls.hasNonNull, nulls.hasNonNull)
      else if (onlyThat) clauses
      else clauses.copy(mayBeFalse = nulls.hasNonNull)
  }

  private def equalTo(v: UTF8String, nullSafe: Boolean): LeafClauses = {
    val someOther = if (isShort(v)) anyAffix(EqualTo(slot, lit(v)), outcome = false) else nulls.hasNonNull
    LeafClauses(
      anyAffix(EqualTo(slot, lit(side.cut(v, length))), outcome = true),
      if (nullSafe) or(nulls.hasNull, someOther) else someOther)
  }

  private def in(values: Seq[UTF8String], listHasNull: Boolean): LeafClauses = {
    val mayBeFalse =
      if (listHasNull) FalseLiteral
      else if (values.forall(isShort)) anyAffix(InSet(slot, values.toSet[Any]), outcome = false)
      else nulls.hasNonNull
    LeafClauses(anyAffix(InSet(slot, values.map(side.cut(_, length)).toSet[Any]), outcome = true), mayBeFalse)
  }
}
