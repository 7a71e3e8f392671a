package io.skipstone.indexing

import scala.util.control.NonFatal

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{Alias, Expression, SubqueryExpression, UserDefinedExpression, WindowExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Project}
import org.apache.spark.sql.functions.{coalesce, expr, lit, max}
import org.apache.spark.sql.types.BooleanType

/**
 * The WHERE of a partial index (docs/partial-indexes.md): a file is indexed only if the
 * predicate holds (is TRUE) for at least one of its rows. The metadata of an indexed file
 * still summarizes all of its rows, so it answers any query; a file where it holds for no row
 * gets no summary and is always read. The predicate only decides which files are worth
 * summarizing: however it is evaluated, no answer can be wrong.
 *
 * It must be a deterministic boolean expression of the dataset's columns with Spark's built-in
 * functions: a build, a refresh and a query's automatic refresh evaluate it in whatever session
 * they run, without Python.
 */
object PartialIndex {
  /** The per-file flag: whether the WHERE holds for some row of the file (an aggregate). */
  def holdsForSomeRow(where: String): Column = max(coalesce(expr(where), lit(false)))

  /** Raises an [[IndexBuildError]] naming the predicate and what is wrong with it. */
  def check(session: SparkSession, data: DataFrame, where: String, dataset: String): Unit = {
    def fail(why: String) = throw new IndexBuildError(s"the WHERE of the partial index on $dataset ($where) $why")
    if (where.trim.isEmpty) fail("is empty: write a predicate, e.g. WHERE ts >= '2026-01-01'")
    val parsed = try session.sessionState.sqlParser.parseExpression(where) catch {
      case NonFatal(e) => fail(s"is not a SQL expression: ${e.getMessage.linesIterator.next()}")
    }
    // Spark's expression parser reads `k > 1 foo` as `k > 1` named foo
    if (parsed.isInstanceOf[Alias]) fail("is not one SQL predicate: text follows it")
    if (parsed.exists(_.isInstanceOf[SubqueryExpression])) fail("holds a subquery; use a predicate over each row's own columns")
    val resolver = session.sessionState.conf.resolver
    val plan = data.queryExecution.analyzed
    parsed.collect { case a: UnresolvedAttribute => a }.find(a => plan.resolve(a.nameParts, resolver).isEmpty).foreach { a =>
      fail(s"names the column ${a.sql}, which $dataset does not have (its columns: ${data.columns.mkString(", ")})")
    }
    val analyzed: Expression = try {
      data.select(expr(where).alias("where")).queryExecution.analyzed match {
        case Project(Seq(Alias(e, _)), _) => e
        case _: Aggregate => fail("holds an aggregate function; use a predicate over each row's own columns")
        case other => fail(s"is not a predicate over single rows (it plans as ${other.nodeName})")
      }
    } catch {
      case e: IndexBuildError => throw e
      case NonFatal(e) => fail(s"cannot be evaluated over its rows: ${e.getMessage.linesIterator.next()}")
    }
    analyzed.collectFirst {
      case u: UserDefinedExpression => s"calls the user-defined function ${u.name}; use Spark's built-in functions only " +
        "(a refresh may run in a session, or at a query, where the function is not registered)"
      case _: SubqueryExpression => "holds a subquery; use a predicate over each row's own columns"
      case _: AggregateExpression => "holds an aggregate function; use a predicate over each row's own columns"
      case _: WindowExpression => "holds a window function; use a predicate over each row's own columns"
    }.foreach(fail)
    if (!analyzed.deterministic) fail("is not deterministic (rand(), uuid(), ...): which files are indexed must not " +
      "depend on when the predicate is evaluated")
    if (analyzed.dataType != BooleanType) fail(s"is of type ${analyzed.dataType.simpleString}, not a boolean predicate")
  }
}
