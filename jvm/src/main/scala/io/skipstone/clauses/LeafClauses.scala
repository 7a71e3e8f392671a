package io.skipstone.clauses

import org.apache.spark.sql.catalyst.expressions.{And, Expression, Literal, Not, Or}
import org.apache.spark.sql.catalyst.expressions.Literal.{FalseLiteral, TrueLiteral}

/**
 * What metadata says about one predicate leaf in one file, as boolean expressions over the
 * file's metadata row. SQL is three-valued, so a leaf needs two answers: NOT pushed down to the
 * leaves turns "may some row be TRUE" of `NOT p` into "may some row make p FALSE".
 * Each expression evaluating to FALSE proves the file holds no such row; TRUE or NULL mean
 * "maybe", so the file is read.
 */
case class LeafClauses(mayBeTrue: Expression, mayBeFalse: Expression) {
  /** Two indexes' answers about the same leaf are both sound, so both must hold. */
  def and(other: LeafClauses): LeafClauses =
    LeafClauses(Clause.and(mayBeTrue, other.mayBeTrue), Clause.and(mayBeFalse, other.mayBeFalse))
}

object LeafClauses {
  val Unknown: LeafClauses = LeafClauses(TrueLiteral, TrueLiteral)
  /** A leaf that is NULL for every row (e.g. `x = NULL`) is never TRUE and never FALSE. */
  val AlwaysNull: LeafClauses = LeafClauses(FalseLiteral, FalseLiteral)
}

/** Boolean connectives that fold constants, so "nothing known" stays a plain TRUE. */
object Clause {
  def and(l: Expression, r: Expression): Expression = (l, r) match {
    case (TrueLiteral, x) => x
    case (x, TrueLiteral) => x
    case (FalseLiteral, _) | (_, FalseLiteral) => FalseLiteral
    case _ => And(l, r)
  }

  def or(l: Expression, r: Expression): Expression = (l, r) match {
    case (FalseLiteral, x) => x
    case (x, FalseLiteral) => x
    case (TrueLiteral, _) | (_, TrueLiteral) => TrueLiteral
    case _ => Or(l, r)
  }

  def not(e: Expression): Expression = e match {
    case TrueLiteral => FalseLiteral
    case FalseLiteral => TrueLiteral
    case _ => Not(e)
  }

  def isTriviallyTrue(e: Expression): Boolean = e == TrueLiteral

  def literal(value: Any, like: Expression): Literal = Literal.create(value, like.dataType)
}
