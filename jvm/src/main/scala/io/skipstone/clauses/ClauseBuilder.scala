package io.skipstone.clauses

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.Literal.{FalseLiteral, TrueLiteral}

/**
 * Turns a query's filter condition into one clause over a file's metadata: FALSE proves that
 * no row of the file satisfies the condition.
 *
 * AND/OR/NOT are walked with NOT pushed to the leaves (sound under three-valued logic, by
 * De Morgan), and each leaf is asked of every index; leaves no index answers become TRUE
 * ("may match") and are reported, so users can see why a query was not skipped.
 */
class ClauseBuilder(translators: Seq[LeafTranslator]) {

  case class Translation(clause: Expression, unanswered: Seq[Expression])

  def translate(condition: Expression): Translation = {
    val unanswered = Seq.newBuilder[Expression]
    def leaf(e: Expression): LeafClauses = {
      val answers = translators.flatMap(_.translate(e))
      if (answers.isEmpty) { unanswered += e; LeafClauses.Unknown }
      else answers.reduce(_ and _)
    }
    def mayBeTrue(e: Expression): Expression = e match {
      case And(l, r) => Clause.and(mayBeTrue(l), mayBeTrue(r))
      case Or(l, r) => Clause.or(mayBeTrue(l), mayBeTrue(r))
      case Not(c) => mayBeFalse(c)
      case Literal(true, _) => TrueLiteral
      case Literal(false | null, _) => FalseLiteral
      case _ => leaf(e).mayBeTrue
    }
    def mayBeFalse(e: Expression): Expression = e match {
      case And(l, r) => Clause.or(mayBeFalse(l), mayBeFalse(r))
      case Or(l, r) => Clause.and(mayBeFalse(l), mayBeFalse(r))
      case Not(c) => mayBeTrue(c)
      case Literal(false, _) => TrueLiteral
      case Literal(true | null, _) => FalseLiteral
      case _ => leaf(e).mayBeFalse
    }
    val clause = mayBeTrue(condition)
    Translation(clause, unanswered.result().distinct)
  }
}
