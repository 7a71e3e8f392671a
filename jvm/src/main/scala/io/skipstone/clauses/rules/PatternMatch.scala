package io.skipstone.clauses.rules

import scala.util.Try

import org.apache.spark.sql.catalyst.analysis.{Resolver, UnresolvedAttribute, UnresolvedFunction}
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types.ArrayType

import io.skipstone.clauses.{ColumnPath, ColumnRef, Leaves}
import io.skipstone.clauses.Leaves.ColumnInList

/** What a pattern's placeholders matched in one predicate leaf. */
case class Bindings(constants: Map[String, Literal], columns: Map[String, ColumnPath])

object Bindings {
  val Empty: Bindings = Bindings(Map.empty, Map.empty)
}

/** How the clauses use a free placeholder, which decides what it may match in a leaf. */
sealed trait Use
object Use {
  /** Its value goes into the clause: it must match a constant (evaluated at planning time). */
  case object Constant extends Use
  /** Its metadata is looked up (`{x:kind.role}`): it must match a column. */
  case object Column extends Use
  /** Not used by the clauses: it matches anything. */
  case object Any extends Use
}

/**
 * Structural matching of a parsed pattern (unresolved: placeholders are attributes, functions
 * are names) against a resolved predicate leaf.
 *
 *  - Comparisons match with the operands in either order (`{v} > f({col})` is `f({col}) < {v}`).
 *  - `x IN ({vs})` with one placeholder in the list binds the whole list, NULLs dropped, as an
 *    array constant; Spark's `InSet` (long lists) matches too.
 *  - A function name matches a Python or Scala UDF of that name, or a built-in whose
 *    registered class is the leaf's class (also when the built-in is rewritten at analysis).
 *  - Order-preserving casts Spark inserted in the leaf (`CAST(length(s) AS BIGINT) = 3L`) are
 *    looked through: they keep both order and equality, so the clause is unchanged.
 */
class PatternMatch(text: RuleText, uses: Map[String, Use], indexColumns: Seq[ColumnPath],
                   resolver: Resolver, functions: FunctionNames) {

  def apply(pattern: Expression, leaf: Expression): Option[Bindings] = matches(pattern, leaf, Bindings.Empty)

  private object Hole {
    def unapply(e: Expression): Option[Placeholder] = text.placeholder(e)
  }

  private def matches(p: Expression, e: Expression, b: Bindings): Option[Bindings] =
    direct(p, e, b).orElse(e match {
      case c: Cast if !p.isInstanceOf[Cast] && ColumnRef.preservesOrder(c.child.dataType, c.dataType) =>
        matches(p, c.child, b)
      case _ => None
    })

  private def direct(p: Expression, e: Expression, b: Bindings): Option[Bindings] = (p, e) match {
    case (Hole(ph), _) => bind(ph, e, b)
    case (pc: BinaryComparison, ec: BinaryComparison) => comparison(pc, ec, b)
    case (In(pv, Seq(Hole(list))), ColumnInList(ev, values, _)) =>
      matches(pv, ev, b).flatMap(bindList(list, ev, values, _))
    case (f: UnresolvedFunction, _) if f.arguments.length == e.children.length && functions.same(f.nameParts, e) =>
      all(f.arguments.zip(e.children), b)
    case (a: UnresolvedAttribute, ColumnRef(ref)) => Some(b).filter(_ => ref.path.sameAs(ColumnPath(a.nameParts), resolver))
    case (l: Literal, _) if e.foldable => Leaves.constant(e).filter(sameValue(l, _)).map(_ => b)
    case (pc: Cast, ec: Cast) if pc.dataType == ec.dataType => matches(pc.child, ec.child, b)
    case _ if p.getClass == e.getClass && p.children.length == e.children.length &&
              otherArguments(p) == otherArguments(e) => all(p.children.zip(e.children), b)
    case _ => None
  }

  private def all(pairs: Seq[(Expression, Expression)], b: Bindings): Option[Bindings] =
    pairs.foldLeft(Option(b)) { case (acc, (p, e)) => acc.flatMap(matches(p, e, _)) }

  private def comparison(p: BinaryComparison, e: BinaryComparison, b: Bindings): Option[Bindings] = {
    val same = if (p.getClass == e.getClass) all(Seq(p.left -> e.left, p.right -> e.right), b) else None
    same.orElse(if (flipped(p).contains(e.getClass)) all(Seq(p.left -> e.right, p.right -> e.left), b) else None)
  }

  private def flipped(c: BinaryComparison): Option[Class[_]] = c match {
    case _: LessThan => Some(classOf[GreaterThan])
    case _: LessThanOrEqual => Some(classOf[GreaterThanOrEqual])
    case _: GreaterThan => Some(classOf[LessThan])
    case _: GreaterThanOrEqual => Some(classOf[LessThanOrEqual])
    case _: EqualTo => Some(classOf[EqualTo])
    case _: EqualNullSafe => Some(classOf[EqualNullSafe])
    case _ => None
  }

  private def bind(ph: Placeholder, e: Expression, b: Bindings): Option[Bindings] = ph.indexColumn match {
    case Some(n) => e match {
      case ColumnRef(ref) if n < indexColumns.length && ref.path.sameAs(indexColumns(n), resolver) => Some(b)
      case _ => None
    }
    case None => uses.getOrElse(ph.name, Use.Any) match {
      case Use.Any => Some(b)
      case Use.Column => e match {
        case ColumnRef(ref) => b.columns.get(ph.name) match {
          case Some(bound) => Some(b).filter(_ => bound.sameAs(ref.path, resolver))
          case None => Some(b.copy(columns = b.columns + (ph.name -> ref.path)))
        }
        case _ => None
      }
      case Use.Constant if e.foldable => Leaves.constant(e).flatMap(bindConstant(ph, _, b))
      case Use.Constant => None
    }
  }

  private def bindList(ph: Placeholder, column: Expression, values: Seq[Any], b: Bindings): Option[Bindings] =
    if (uses.get(ph.name).contains(Use.Column)) None
    else bindConstant(ph, Literal(new GenericArrayData(values.toArray), ArrayType(column.dataType, false)), b)

  private def bindConstant(ph: Placeholder, v: Literal, b: Bindings): Option[Bindings] =
    b.constants.get(ph.name) match {
      case Some(bound) => Some(b).filter(_ => bound == v)
      case None => Some(b.copy(constants = b.constants + (ph.name -> v)))
    }

  private def sameValue(pattern: Literal, leaf: Literal): Boolean =
    if (pattern.dataType == leaf.dataType) pattern.value == leaf.value
    else Try(Cast(pattern, leaf.dataType).eval()).toOption.contains(leaf.value)

  /** A node's arguments that are not children (e.g. a LIKE's escape character). */
  private def otherArguments(e: Expression): Seq[Any] = e.productIterator.filter {
    case _: Expression | _: Iterable[_] | _: Option[_] => false
    case _ => true
  }.toSeq
}
