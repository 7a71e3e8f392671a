package io.skipstone.clauses

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.Literal.{FalseLiteral, TrueLiteral}
import org.apache.spark.sql.types.BooleanType

import io.skipstone.metadata.ColumnPath

/**
 * Turns a query's filter condition into one clause over a file's metadata: FALSE proves that
 * no row of the file satisfies the condition.
 *
 * AND/OR/NOT are walked with NOT pushed to the leaves (sound under three-valued logic, by
 * De Morgan), and each leaf is asked of every index; leaves no index answers become TRUE
 * ("may match") and are reported, so users can see why a query was not skipped.
 *
 * Tests of a predicate's outcome (`(a > 0 AND b > 1) IS NULL`, `p IS NOT TRUE`, see
 * [[TruthTest]]) also need "may it be NULL": a connective is NULL only through a NULL operand,
 * and a leaf that Spark types as never NULL for non-NULL inputs only through a NULL column,
 * which the NULL counts every kind keeps answer.
 */
class ClauseBuilder(translators: Seq[LeafTranslator]) extends PredicateHelper {

  case class Translation(clause: Expression, unanswered: Seq[Expression])

  def translate(condition: Expression): Translation = {
    val unanswered = Seq.newBuilder[Expression]
    def answers(e: Expression): Option[LeafClauses] = {
      // A bare boolean column (`WHERE flag`, or `NOT flag` from `flag = false`) is `flag = true`.
      val asComparison = if (e.dataType == BooleanType) Some(EqualTo(e, TrueLiteral)) else None
      val found = translators.flatMap(t => t.translate(e).orElse(asComparison.flatMap(t.translate)))
      if (found.isEmpty) None else Some(found.reduce(_ and _))
    }
    def leaf(e: Expression): LeafClauses = answers(e).getOrElse { unanswered += e; LeafClauses.Unknown }
    // Conjunctions are also offered whole; `NOT (a OR b)` is the conjunction `NOT a AND NOT b`.
    def conjunction(parts: Seq[Expression]): Expression =
      translators.flatMap(_.conjunction(parts)).foldLeft(parts.map(mayBeTrue).reduce(Clause.and))(Clause.and)
    def mayBeTrue(e: Expression): Expression = e match {
      case a: And => conjunction(splitConjunctivePredicates(a))
      case Or(l, r) => Clause.or(mayBeTrue(l), mayBeTrue(r))
      case Not(c) => mayBeFalse(c)
      case Literal(true, _) => TrueLiteral
      case Literal(false | null, _) | Leaves.EmptyInList() => FalseLiteral
      case t @ TruthTest(test) => truthTest(t, test, askingTrue = true)
      case _ => leaf(e).mayBeTrue
    }
    def mayBeFalse(e: Expression): Expression = e match {
      case And(l, r) => Clause.or(mayBeFalse(l), mayBeFalse(r))
      case o: Or => conjunction(splitDisjunctivePredicates(o).map(Not))
      case Not(c) => mayBeTrue(c)
      case Literal(false, _) | Leaves.EmptyInList() => TrueLiteral
      case Literal(true | null, _) => FalseLiteral
      case t @ TruthTest(test) => truthTest(t, test, askingTrue = false)
      case _ => leaf(e).mayBeFalse
    }
    /** May some row of the file make `e` NULL? */
    def mayBeNull(e: Expression): Expression = e match {
      case _ if !e.nullable => FalseLiteral
      // (x1 AND ... AND xn) is NULL on a row iff no xi is FALSE there and some xi is NULL; per
      // file, some xi may be NULL and every xj may be other than FALSE. Each xi's NULL answer
      // implies its "not FALSE", so this is as exact as pairing them (and stays linear).
      case a: And => connectiveMayBeNull(splitConjunctivePredicates(a), x => Clause.or(mayBeTrue(x), _))
      case o: Or => connectiveMayBeNull(splitDisjunctivePredicates(o), x => Clause.or(mayBeFalse(x), _))
      case Not(c) => mayBeNull(c)
      case Literal(null, _) => TrueLiteral
      case _ => leafMayBeNull(e)
    }
    def connectiveMayBeNull(parts: Seq[Expression], notAbsorbing: Expression => Expression => Expression): Expression = {
      val nulls = parts.map(mayBeNull)
      val others = parts.zip(nulls).map { case (p, n) => notAbsorbing(p)(n) }
      Clause.and(nulls.reduce(Clause.or), others.reduce(Clause.and))
    }
    /**
     * A leaf whose value Spark types as non-NULL once its columns are non-NULL (comparisons and
     * IN with non-NULL constants, LIKE, widening casts) is NULL only where one of its columns
     * is: ask each column's `IS NULL` of the indexes. Anything else (a cast that may fail, a
     * UDF) may be NULL on any row.
     */
    def leafMayBeNull(e: Expression): Expression = {
      val columns = Seq.newBuilder[Expression]
      val withColumnsSet = e.transformDown {
        case c if ColumnPath.of(c).isDefined => columns += c; AttributeReference("column", c.dataType, nullable = false)()
      }
      val answered = if (withColumnsSet.nullable) None
        else columns.result().distinct.foldLeft(Option(FalseLiteral: Expression)) { (acc, c) =>
          for (so <- acc; a <- answers(IsNull(c))) yield Clause.or(so, a.mayBeTrue)
        }
      answered.getOrElse { unanswered += IsNull(e); TrueLiteral }
    }
    def may(e: Expression, outcome: Truth): Expression = outcome match {
      case Truth.True => mayBeTrue(e)
      case Truth.False => mayBeFalse(e)
      case Truth.Null => mayBeNull(e)
    }
    // An index may also answer the test itself (a rule written for `f(x) IS NULL`): both hold.
    def truthTest(e: Expression, test: TruthTest, askingTrue: Boolean): Expression = {
      val direct = answers(e).map(a => if (askingTrue) a.mayBeTrue else a.mayBeFalse)
      val outcomes = if (askingTrue) test.holdsFor else Truth.All -- test.holdsFor
      val structural = Seq(Truth.True, Truth.False, Truth.Null).filter(outcomes).map(may(test.predicate, _))
        .foldLeft(FalseLiteral: Expression)(Clause.or)
      direct.foldLeft(structural)(Clause.and)
    }
    val clause = mayBeTrue(condition)
    Translation(clause, unanswered.result().distinct)
  }
}
