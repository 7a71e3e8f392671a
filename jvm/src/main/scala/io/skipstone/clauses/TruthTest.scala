package io.skipstone.clauses

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types.BooleanType

/** One of the three values a SQL predicate can take on a row. */
sealed trait Truth
object Truth {
  case object True extends Truth
  case object False extends Truth
  case object Null extends Truth
  val All: Set[Truth] = Set(True, False, Null)
}

/**
 * A test of a predicate's three-valued outcome: `p IS NULL`, `p IS NOT NULL`, and
 * `p IS [NOT] TRUE/FALSE` (Spark parses `p IS TRUE` as `p <=> true`, `IS NOT TRUE` as its NOT).
 * The test is TRUE on a row exactly when `p`'s value there is in `holdsFor`, FALSE otherwise:
 * never NULL. So "may the test be TRUE" is "may `p` take one of `holdsFor`", and "may it be
 * FALSE" is "may `p` take one of the others".
 *
 * Only predicates that are not themselves a column match: a test of a boolean column
 * (`flag IS NULL`, `flag <=> true`) is a leaf the indexes on that column answer directly.
 */
case class TruthTest(predicate: Expression, holdsFor: Set[Truth])

object TruthTest {
  def unapply(e: Expression): Option[TruthTest] = e match {
    case IsNull(Predicate(p)) => Some(TruthTest(p, Set(Truth.Null)))
    case IsNotNull(Predicate(p)) => Some(TruthTest(p, Set(Truth.True, Truth.False)))
    case EqualNullSafe(Predicate(p), Outcome(t)) => Some(TruthTest(p, Set(t)))
    case EqualNullSafe(Outcome(t), Predicate(p)) => Some(TruthTest(p, Set(t)))
    case _ => None
  }

  private object Predicate {
    def unapply(e: Expression): Option[Expression] =
      if (e.dataType == BooleanType && !e.foldable && ColumnRef.unapply(e).isEmpty) Some(e) else None
  }

  private object Outcome {
    def unapply(e: Expression): Option[Truth] = e match {
      case Literal(true, BooleanType) => Some(Truth.True)
      case Literal(false, BooleanType) => Some(Truth.False)
      case Literal(null, _) => Some(Truth.Null)
      case _ => None
    }
  }
}
