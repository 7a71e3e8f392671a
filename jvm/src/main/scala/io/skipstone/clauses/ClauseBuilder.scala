package io.skipstone.clauses

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.Literal.{FalseLiteral, TrueLiteral}
import org.apache.spark.sql.types.BooleanType

/**
 * Turns a query's filter condition into one clause over a file's metadata: FALSE proves that
 * no row of the file satisfies the condition.
 *
 * AND/OR/NOT are walked with NOT pushed to the leaves (sound under three-valued logic, by
 * De Morgan), and each leaf is asked of every index; leaves no index answers become TRUE
 * ("may match") and are reported, so users can see why a query was not skipped.
 */
class ClauseBuilder(translators: Seq[LeafTranslator]) extends PredicateHelper {

  case class Translation(clause: Expression, unanswered: Seq[Expression])

  def translate(condition: Expression): Translation = {
    val unanswered = Seq.newBuilder[Expression]
    def leaf(e: Expression): LeafClauses = {
      // A bare boolean column (`WHERE flag`, or `NOT flag` from `flag = false`) is `flag = true`.
      val asComparison = if (e.dataType == BooleanType) Some(EqualTo(e, TrueLiteral)) else None
      val answers = translators.flatMap(t => t.translate(e).orElse(asComparison.flatMap(t.translate)))
      if (answers.isEmpty) { unanswered += e; LeafClauses.Unknown }
      else answers.reduce(_ and _)
    }
    // Conjunctions are also offered whole; `NOT (a OR b)` is the conjunction `NOT a AND NOT b`.
    def conjunction(parts: Seq[Expression]): Expression =
      translators.flatMap(_.conjunction(parts)).foldLeft(parts.map(mayBeTrue).reduce(Clause.and))(Clause.and)
    def mayBeTrue(e: Expression): Expression = e match {
      case a: And => conjunction(splitConjunctivePredicates(a))
      case Or(l, r) => Clause.or(mayBeTrue(l), mayBeTrue(r))
      case Not(c) => mayBeFalse(c)
      case Literal(true, _) => TrueLiteral
      case Literal(false | null, _) | Leaves.EmptyInList() => FalseLiteral
      case _ => leaf(e).mayBeTrue
    }
    def mayBeFalse(e: Expression): Expression = e match {
      case And(l, r) => Clause.or(mayBeFalse(l), mayBeFalse(r))
      case o: Or => conjunction(splitDisjunctivePredicates(o).map(Not))
      case Not(c) => mayBeTrue(c)
      case Literal(false, _) | Leaves.EmptyInList() => TrueLiteral
      case Literal(true | null, _) => FalseLiteral
      case _ => leaf(e).mayBeFalse
    }
    val clause = mayBeTrue(condition)
    Translation(clause, unanswered.result().distinct)
  }
}
