package io.skipstone.clauses

import scala.util.Try

import org.apache.spark.sql.catalyst.expressions._

/** The comparison a leaf makes, with the column on the left. */
sealed trait Comparison {
  /** The same comparison with its operands swapped: `5 < x` is `x > 5`. */
  def flipped: Comparison = this match {
    case Comparison.Lt => Comparison.Gt
    case Comparison.Le => Comparison.Ge
    case Comparison.Gt => Comparison.Lt
    case Comparison.Ge => Comparison.Le
    case symmetric => symmetric
  }
}
object Comparison {
  case object Eq extends Comparison
  case object EqNullSafe extends Comparison
  case object Lt extends Comparison
  case object Le extends Comparison
  case object Gt extends Comparison
  case object Ge extends Comparison

  def of(b: BinaryComparison): Option[Comparison] = b match {
    case _: EqualTo => Some(Eq)
    case _: EqualNullSafe => Some(EqNullSafe)
    case _: LessThan => Some(Lt)
    case _: LessThanOrEqual => Some(Le)
    case _: GreaterThan => Some(Gt)
    case _: GreaterThanOrEqual => Some(Ge)
    case _ => None
  }
}

/** Patterns over predicate leaves that index types share: a column side and constant side. */
object Leaves {
  /** `column op constant` or `constant op column`, normalised so the column is on the left. */
  object ColumnComparison {
    def unapply(e: Expression): Option[(Comparison, Expression, Literal)] = e match {
      case b: BinaryComparison if b.right.foldable && !b.left.foldable =>
        for (op <- Comparison.of(b); v <- constant(b.right)) yield (op, b.left, v)
      case b: BinaryComparison if b.left.foldable && !b.right.foldable =>
        for (op <- Comparison.of(b); v <- constant(b.left)) yield (op.flipped, b.right, v)
      case _ => None
    }
  }

  /**
   * `x IN ()`: FALSE for every row in Spark 4, NULL rows included (with the legacy
   * `spark.sql.legacy.nullInEmptyListBehavior` it is NULL there: never TRUE either way).
   */
  object EmptyInList {
    def unapply(e: Expression): Boolean = e match {
      case In(_, list) => list.isEmpty
      case InSet(_, set) => set.isEmpty
      case _ => false
    }
  }

  /**
   * `column IN (constants)`, from either `In` or the `InSet` Spark turns long lists into.
   * Never an empty list ([[EmptyInList]]), which is not "no value matches" but FALSE outright.
   */
  object ColumnInList {
    def unapply(e: Expression): Option[(Expression, Seq[Any], Boolean)] = e match {
      case EmptyInList() => None
      case In(column, list) if !column.foldable && list.forall(_.foldable) =>
        Try(list.map(_.eval())).toOption.map { values =>
          (column, values.filter(_ != null), values.contains(null))
        }
      case InSet(column, set) if !column.foldable =>
        Some((column, set.iterator.filter(_ != null).toSeq, set.contains(null)))
      case _ => None
    }
  }

  /** A constant's value, computed once at planning time. */
  def constant(e: Expression): Option[Literal] = e match {
    case l: Literal => Some(l)
    case _ if e.deterministic => Try(Literal.create(e.eval(), e.dataType)).toOption
    case _ => None
  }
}
