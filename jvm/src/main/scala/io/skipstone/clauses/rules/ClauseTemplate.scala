package io.skipstone.clauses.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.QueryPlanningTracker
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{CommonExpressionRef, Expression, With}
import org.apache.spark.sql.catalyst.optimizer.{ConstantFolding, ReplaceExpressions}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LocalRelation}
import org.apache.spark.sql.types.BooleanType

import io.skipstone.metadata.LoadedMetadata

/**
 * A clause template: SQL over the file's metadata row, parsed once, instantiated per matched
 * leaf by putting the bound constants and metadata columns in place of its placeholders and
 * resolving it (functions, type coercion) as Spark would a filter over the metadata table.
 *
 * @param metadataColumn the metadata column a placeholder stands for, given the bindings
 */
class ClauseTemplate(val text: RuleText, parsed: Expression) {

  def instantiate(session: SparkSession, metadata: LoadedMetadata, b: Bindings,
                  metadataColumn: (Placeholder, Bindings) => Option[String]): Option[Expression] =
    substitute(b, metadataColumn).flatMap(ClauseTemplate.resolve(session, metadata, _))

  /** The clause with its placeholders filled in, still unresolved (so it can be combined). */
  def substitute(b: Bindings, metadataColumn: (Placeholder, Bindings) => Option[String]): Option[Expression] =
    text.placeholders.toSeq.foldLeft(Option(parsed)) { case (acc, (id, ph)) =>
      acc.flatMap { e =>
        val value = b.constants.get(ph.name).filter(_ => ph.role.isEmpty)
          .orElse(metadataColumn(ph, b).map(c => UnresolvedAttribute.quoted(c)))
        value.map(v => e.transformUp { case x if RuleText.identifier(x).contains(id) => v })
      }
    }
}

object ClauseTemplate {
  /** Analysis as for `SELECT * FROM metadata WHERE clause`, constants folded once here. */
  def resolve(session: SparkSession, metadata: LoadedMetadata, clause: Expression): Option[Expression] = {
    val plan = Filter(clause, LocalRelation(metadata.attributes))
    val analyzed = session.sessionState.analyzer.executeAndCheck(plan, new QueryPlanningTracker)
    ConstantFolding(ReplaceExpressions(analyzed)) match {
      case Filter(condition, _) if condition.dataType == BooleanType => Some(inlineWith(condition))
      case _ => None
    }
  }

  /** `With` (from e.g. BETWEEN) is unevaluable; the metadata row is small, so inline it. */
  def inlineWith(e: Expression): Expression = e.transformUp {
    case With(child, defs) =>
      val byId = defs.map(d => d.id -> d.child).toMap
      child.transformUp { case r: CommonExpressionRef if byId.contains(r.id) => byId(r.id) }
  }
}
