package io.skipstone.clauses.rules

import org.apache.spark.sql.catalyst.analysis.{UnresolvedAttribute, UnresolvedFunction}
import org.apache.spark.sql.catalyst.expressions.{And, Expression, LambdaFunction, Or, UnresolvedNamedLambdaVariable}

/**
 * One conjunct's clause over a cover, split: `elsewhere OR exists({cover}, e -> element(e))`.
 *
 * @param call      the parsed `exists` call, reused to build the merged one
 * @param lambda    its lambda, likewise
 * @param elsewhere the other disjuncts (rows the cover leaves out, e.g. GeoBox's `{odd} > 0`)
 * @param element   the lambda's body, its variable renamed to [[CoverConjunction.Element]]
 */
case class CoverPart(call: UnresolvedFunction, lambda: LambdaFunction, elsewhere: Seq[Expression], element: Expression)

/**
 * Conjunctions over a cover: an array role in which every row the rules speak about is
 * represented by one element (GeoBox: each point lies in one of its file's boxes), declared by
 * the index's `cover` param. A rule's clause `U OR exists({cover}, e -> P(e))` then says more
 * than "some element passes P": the element of each row that makes the leaf TRUE passes P, or U
 * holds. A row that makes several conjuncts TRUE makes them TRUE on one element, so
 * `U1 OR U2 OR exists({cover}, e -> P1(e) AND P2(e))` is sound for the conjunction, and can be
 * FALSE where each clause alone is TRUE (a file with a box meeting `lat > 10` and another
 * meeting `lat < 20`, none meeting both).
 */
object CoverConjunction {
  /** The index param naming the cover role. */
  val Param = "cover"
  private val Element = "__skipstone_element__"

  /** The parts of a substituted, unresolved clause of the shape above, over `cover`. */
  def part(clause: Expression, cover: UnresolvedAttribute): Option[CoverPart] =
    disjuncts(clause).partition(overCover(_, cover).isDefined) match {
      case (Seq(call), elsewhere) => overCover(call, cover).flatMap { case (f, lambda, variable) =>
        renamed(lambda.function, variable).map(CoverPart(f, lambda, elsewhere, _))
      }
      case _ => None
    }

  /** One clause for the parts of several conjuncts (at least one part). */
  def merge(parts: Seq[CoverPart], cover: UnresolvedAttribute): Expression = {
    val first = parts.head
    val lambda = first.lambda.copy(function = parts.map(_.element).distinct.reduce(And),
                                   arguments = Seq(UnresolvedNamedLambdaVariable(Seq(Element))))
    val exists = first.call.withNewChildren(Seq(cover, lambda))
    (parts.flatMap(_.elsewhere).distinct :+ exists).reduce(Or)
  }

  private def disjuncts(e: Expression): Seq[Expression] = e match {
    case Or(l, r) => disjuncts(l) ++ disjuncts(r)
    case other => Seq(other)
  }

  private def overCover(e: Expression, cover: UnresolvedAttribute): Option[(UnresolvedFunction, LambdaFunction, String)] =
    e match {
      // fields, not the extractor: UnresolvedFunction's arity differs between Spark versions
      case f: UnresolvedFunction if f.nameParts.last.equalsIgnoreCase("exists") && f.children == f.arguments =>
        f.arguments match {
          case Seq(array: UnresolvedAttribute, lambda @ LambdaFunction(_, Seq(UnresolvedNamedLambdaVariable(Seq(v))), _))
              if array.nameParts == cover.nameParts => Some((f, lambda, v))
          case _ => None
        }
      case _ => None
    }

  /** The body with its variable under one shared name; bodies with lambdas of their own are left alone. */
  private def renamed(body: Expression, variable: String): Option[Expression] =
    if (body.exists(_.isInstanceOf[LambdaFunction])) None
    else Some(body.transformUp {
      case UnresolvedNamedLambdaVariable(first +: rest) if first == variable => UnresolvedNamedLambdaVariable(Element +: rest)
    })
}
