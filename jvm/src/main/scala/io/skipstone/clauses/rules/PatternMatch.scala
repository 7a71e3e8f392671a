package io.skipstone.clauses.rules

import org.apache.spark.sql.catalyst.analysis.{Resolver, UnresolvedAttribute, UnresolvedFunction}
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types.ArrayType

import io.skipstone.clauses.{ColumnRef, Leaves}
import io.skipstone.clauses.Leaves.ColumnInList

import io.skipstone.metadata.ColumnPath

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

/** Where in the leaf a pattern node is matched, which decides which casts may be looked through. */
private sealed trait Position
private object Position {
  /** The leaf itself. */
  case object Leaf extends Position
  /** An operand of the leaf's comparison or IN: order-preserving casts keep min/max and equality. */
  case object Operand extends Position
  /** Anywhere deeper, e.g. a function's argument: a cast changes the value the function sees. */
  case object Inside extends Position
}

/**
 * Structural matching of a parsed pattern (unresolved: placeholders are attributes, functions
 * are names) against a resolved predicate leaf.
 *
 *  - Comparisons match with the operands in either order (`{v} > f({col})` is `f({col}) < {v}`).
 *  - `x IN ({vs})` with one placeholder in the list binds the whole list, NULLs dropped, as an
 *    array constant; Spark's `InSet` (long lists) matches too.
 *  - A function name matches a Python or Scala UDF of that name, or a built-in that builds the
 *    leaf's very node from its arguments (class, result type and settings: `int(x)` is not
 *    `CAST(x AS DOUBLE)`), also when the built-in is rewritten at analysis.
 *  - Order-preserving casts Spark inserted around an operand of the leaf's comparison or IN
 *    (`CAST(length(s) AS BIGINT) = 3L`) are looked through: they keep both order and equality,
 *    so the clause is unchanged. Nowhere else: `fmt(CAST(i AS DOUBLE))` is not `fmt(i)`, so a
 *    column inside a function's arguments matches only as the plain column.
 *  - Literals match only the same value, compared without loss: `{col} >= 0.5` is not `x >= 0`.
 */
class PatternMatch(text: RuleText, uses: Map[String, Use], indexColumns: Seq[ColumnPath],
                   resolver: Resolver, functions: FunctionNames) {

  def apply(pattern: Expression, leaf: Expression): Option[Bindings] =
    matches(pattern, leaf, Bindings.Empty, Position.Leaf)

  private object Hole {
    def unapply(e: Expression): Option[Placeholder] = text.placeholder(e)
  }

  private def matches(p: Expression, e: Expression, b: Bindings, at: Position): Option[Bindings] =
    direct(p, e, b, at).orElse(e match {
      case c: Cast if at == Position.Operand && !p.isInstanceOf[Cast] &&
                      ColumnRef.preservesOrder(c.child.dataType, c.dataType) =>
        matches(p, c.child, b, at)
      case _ => None
    })

  private def direct(p: Expression, e: Expression, b: Bindings, at: Position): Option[Bindings] = (p, e) match {
    case (Hole(ph), _) => bind(ph, e, b)
    case (pc: BinaryComparison, ec: BinaryComparison) => comparison(pc, ec, b, operands(at))
    case (In(pv, Seq(Hole(list))), ColumnInList(ev, values, _)) =>
      matches(pv, ev, b, operands(at)).flatMap(bindList(list, ev, values, _))
    case (f: UnresolvedFunction, _) if f.arguments.length == e.children.length && functions.same(f.nameParts, e) =>
      all(f.arguments.zip(e.children), b, Position.Inside)
    case (f: UnresolvedFunction, _) if f.arguments.length > e.children.length => withSettings(f, e, b)
    case (a: UnresolvedAttribute, _) => plainColumn(e).filter(_.sameAs(ColumnPath(a.nameParts), resolver)).map(_ => b)
    case (l: Literal, _) if e.foldable => Leaves.constant(e).filter(sameValue(l, _)).map(_ => b)
    case (pc: Cast, ec: Cast) if NodeArguments.sameNode(pc, ec) => matches(pc.child, ec.child, b, Position.Inside)
    case _ if p.getClass == e.getClass && p.children.length == e.children.length &&
              NodeArguments.of(p) == NodeArguments.of(e) => all(p.children.zip(e.children), b, Position.Inside)
    case _ => None
  }

  /**
   * A built-in that turns some constant arguments into settings of its node rather than children
   * (`variant_get(v, '$.a', 'int')` builds a node with children `v`, `'$.a'` and the type as a
   * setting). Built from the pattern's constants and the leaf's own non-constant inputs, in order,
   * it must be exactly the leaf's node, children included; then the pattern's other arguments
   * match those inputs.
   */
  private def withSettings(f: UnresolvedFunction, e: Expression, b: Bindings): Option[Bindings] = {
    val inputs = e.children.filterNot(_.foldable)
    val others = f.arguments.filterNot(_.isInstanceOf[Literal])
    if (inputs.length != others.length) None
    else {
      val fill = inputs.iterator
      val arguments = f.arguments.map { case l: Literal => l; case _ => fill.next() }
      val same = functions.build(f.nameParts, arguments).exists(built =>
        NodeArguments.sameNode(built, e) && built.children.map(_.canonicalized) == e.children.map(_.canonicalized))
      if (same) all(others.zip(inputs), b, Position.Inside) else None
    }
  }

  /** A comparison's operands are operands only when it is the leaf itself. */
  private def operands(at: Position): Position = if (at == Position.Leaf) Position.Operand else Position.Inside

  private def all(pairs: Seq[(Expression, Expression)], b: Bindings, at: Position): Option[Bindings] =
    pairs.foldLeft(Option(b)) { case (acc, (p, e)) => acc.flatMap(matches(p, e, _, at)) }

  private def comparison(p: BinaryComparison, e: BinaryComparison, b: Bindings, at: Position): Option[Bindings] = {
    val same = if (p.getClass == e.getClass) all(Seq(p.left -> e.left, p.right -> e.right), b, at) else None
    same.orElse(if (flipped(p).contains(e.getClass)) all(Seq(p.left -> e.right, p.right -> e.left), b, at) else None)
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

  /** Casts around an operand are stripped by `matches`; what is bound is the column itself. */
  private def plainColumn(e: Expression): Option[ColumnPath] = ColumnPath.of(e)

  private def bind(ph: Placeholder, e: Expression, b: Bindings): Option[Bindings] = ph.indexColumn match {
    case Some(n) => plainColumn(e).filter(path => n < indexColumns.length && path.sameAs(indexColumns(n), resolver)).map(_ => b)
    case None => uses.getOrElse(ph.name, Use.Any) match {
      case Use.Any => Some(b)
      case Use.Column => plainColumn(e).flatMap { path =>
        b.columns.get(ph.name) match {
          case Some(bound) => Some(b).filter(_ => bound.sameAs(path, resolver))
          case None => Some(b.copy(columns = b.columns + (ph.name -> path)))
        }
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
    else ExactCast(pattern, leaf.dataType).contains(leaf.value)
}
