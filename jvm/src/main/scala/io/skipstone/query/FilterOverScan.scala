package io.skipstone.query

import org.apache.spark.sql.catalyst.expressions.{And, Attribute, Expression, ExprId, PredicateHelper}
import org.apache.spark.sql.execution.{FilterExec, ProjectExec, SparkPlan}
import org.apache.spark.sql.execution.python.EvalPythonExec

/**
 * The filter right above a scan of the physical plan, with the Python UDF calls Spark took out
 * of it put back.
 *
 * Spark evaluates Python UDFs in operators of their own (`BatchEvalPythonExec`,
 * `ArrowEvalPythonExec`) before planning: by the physical plan, `WHERE f(a) = 5 AND b > 3` is a
 * filter on the UDF's result column, above the evaluation, above a filter with the rest over the
 * scan. The rules that skip on physical scans (Delta, Iceberg) would see only the lower filter,
 * and a UDF mapping could never answer the query. Both filters only drop rows, and an evaluation
 * only adds columns (so does a projection of attributes), so the rows the query keeps from the
 * scan are exactly those meeting both conditions: their conjunction, each result column replaced
 * by the call that computes it, is a condition the scan's files may be pruned with.
 *
 * Only deterministic conjuncts of the upper filter are added: a non-deterministic one would
 * make the whole condition unusable for pruning, where the lower filter alone still is.
 */
object FilterOverScan extends PredicateHelper {

  /**
   * @param condition what the rows read from `scan` must meet
   * @param scan      the node right under the lowest filter (the scan, or what stands for it)
   * @param rebuild   the matched plan with another node in the place of `scan`
   */
  final case class Matched(condition: Expression, scan: SparkPlan, rebuild: SparkPlan => SparkPlan)

  /** `plan` as a filter, or a Python UDF filter over the evaluation of its UDFs, right above a node `isScan` accepts. */
  def matched(plan: SparkPlan, isScan: SparkPlan => Boolean): Option[Matched] = plan match {
    case filter @ FilterExec(condition, scan) if isScan(scan) =>
      Some(Matched(condition, scan, s => filter.copy(child = s)))
    case upper @ FilterExec(udfCondition, evaluation: EvalPythonExec) =>
      val (chain, bottom) = evaluations(evaluation)
      val calls = chain.flatMap {
        case e: EvalPythonExec => e.resultAttrs.map(_.exprId).zip(e.udfs)
        case _ => Nil
      }.toMap
      val added = splitConjunctivePredicates(inlined(udfCondition, calls)).filter(_.deterministic)
      def above(s: SparkPlan): SparkPlan = upper.copy(child = chain.foldRight(s)((node, child) => node.withNewChildren(Seq(child))))
      bottom match {
        case lower @ FilterExec(condition, scan) if isScan(scan) =>
          Some(Matched((condition +: added).reduce(And), scan, s => above(lower.copy(child = s))))
        case scan if isScan(scan) && added.nonEmpty =>
          Some(Matched(added.reduce(And), scan, above))
        case _ => None
      }
    case _ => None
  }

  /** The Python evaluations (and projections of attributes) from `top` down, and the node under them. */
  private def evaluations(top: SparkPlan): (Seq[SparkPlan], SparkPlan) = top match {
    case e: EvalPythonExec =>
      val (rest, bottom) = evaluations(e.child)
      (e +: rest, bottom)
    case p @ ProjectExec(list, child) if list.forall(_.isInstanceOf[Attribute]) =>
      val (rest, bottom) = evaluations(child)
      (p +: rest, bottom)
    case other => (Nil, other)
  }

  /** `e` with each UDF result column replaced by its call, itself inlined (a UDF may take another's result). */
  private def inlined(e: Expression, calls: Map[ExprId, Expression]): Expression = e.transformUp {
    case a: Attribute if calls.contains(a.exprId) => inlined(calls(a.exprId), calls)
  }
}
