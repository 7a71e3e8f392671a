package io.skipstone.clauses.rules

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.{AnalysisException, SparkSession}
import org.apache.spark.sql.catalyst.analysis.{Resolver, UnresolvedAttribute}
import org.apache.spark.sql.catalyst.expressions.{Expression, Not}
import org.apache.spark.sql.catalyst.expressions.Literal.TrueLiteral

import io.skipstone.clauses.{LeafClauses, LeafTranslator}
import io.skipstone.metadata.{IndexSpec, LoadedMetadata}

/**
 * The interpreter of stored rules: answers a predicate leaf with every rule of the index whose
 * pattern matches it. Index types defined in Python and UDF mappings reach the JVM this way,
 * as data; a rule whose text does not parse, or whose clause does not resolve against the
 * metadata, answers nothing (its files are read) and is logged. An index with a cover (see
 * [[CoverConjunction]]) also answers conjunctions whole.
 */
case class RuleTranslator(index: IndexSpec, metadata: LoadedMetadata, resolver: Resolver, session: SparkSession)
  extends LeafTranslator with Logging {

  private val functions = new FunctionNames(session.sessionState.catalog)
  private val rules: Seq[CompiledRule] = StoredRule.of(index).flatMap(compile)

  private val cover: Option[UnresolvedAttribute] =
    index.params.get(CoverConjunction.Param).flatMap(index.metadataColumns.get).map(UnresolvedAttribute.quoted(_))

  override def translate(leaf: Expression): Option[LeafClauses] =
    rules.flatMap(answer(_, leaf)).reduceOption(_ and _)

  /** Only worth it when two conjuncts or more have clauses over the cover. */
  override def conjunction(conjuncts: Seq[Expression]): Option[Expression] = cover.flatMap { c =>
    val parts = conjuncts.map(coverParts(_, c)).filter(_.nonEmpty)
    if (parts.length < 2) None
    else resolve(s"the conjunction of ${parts.length} leaves", CoverConjunction.merge(parts.flatten, c))
  }

  /** The cover clauses of one conjunct: "may be TRUE" of a leaf, "may be FALSE" of a negated one. */
  private def coverParts(conjunct: Expression, cover: UnresolvedAttribute): Seq[CoverPart] = {
    val (leaf, clause) = conjunct match {
      case Not(negated) => (negated, (r: CompiledRule) => r.mayBeFalse)
      case positive => (positive, (r: CompiledRule) => Some(r.mayBeTrue))
    }
    for {
      rule <- rules
      template <- clause(rule).toSeq
      b <- rule.matcher(rule.pattern, leaf).toSeq
      substituted <- template.substitute(b, metadataColumn).toSeq
      part <- CoverConjunction.part(substituted, cover).toSeq
    } yield part
  }

  private def resolve(what: String, clause: Expression): Option[Expression] =
    try ClauseTemplate.resolve(session, metadata, clause)
    catch {
      case e: AnalysisException =>
        logWarning(s"Skipstone: $what over ${index.describe} does not resolve; left to its leaves: ${e.getMessage}")
        None
    }

  private case class CompiledRule(stored: StoredRule, pattern: Expression, matcher: PatternMatch,
                                  mayBeTrue: ClauseTemplate, mayBeFalse: Option[ClauseTemplate])

  private def compile(r: StoredRule): Option[CompiledRule] =
    try {
      val parser = session.sessionState.sqlParser
      val patternText = RuleText(r.pattern)
      def template(sql: String) = { val t = RuleText(sql); new ClauseTemplate(t, parser.parseExpression(t.sql)) }
      val (t, f) = (template(r.mayBeTrue), r.mayBeFalse.map(template))
      val uses = RuleCompiler.uses(patternText, t.text +: f.map(_.text).toSeq)
      Some(CompiledRule(r, parser.parseExpression(patternText.sql),
        new PatternMatch(patternText, uses, index.paths, resolver, functions), t, f))
    } catch {
      case e: AnalysisException =>
        logWarning(s"Skipstone: rule ${r.number} of ${index.describe} does not parse; ignored: ${e.getMessage}")
        None
    }

  private def answer(rule: CompiledRule, leaf: Expression): Option[LeafClauses] =
    rule.matcher(rule.pattern, leaf).flatMap { b =>
      for (t <- instantiate(rule, rule.mayBeTrue, b))
        yield LeafClauses(t, rule.mayBeFalse.flatMap(instantiate(rule, _, b)).getOrElse(TrueLiteral))
    }

  private def instantiate(rule: CompiledRule, t: ClauseTemplate, b: Bindings): Option[Expression] =
    try t.instantiate(session, metadata, b, metadataColumn)
    catch {
      case e: AnalysisException =>
        logWarning(s"Skipstone: a clause of rule ${rule.stored.number} of ${index.describe} does not " +
          s"resolve; the leaf is left to other indexes: ${e.getMessage}")
        None
    }

  /** `{role}` is this index's role (or a base column); `{x:kind.role}` another index's role. */
  private def metadataColumn(ph: Placeholder, b: Bindings): Option[String] = ph.role match {
    case None => index.metadataColumns.get(ph.name).orElse(Some(ph.name).filter(RuleCompiler.BaseColumns))
    case Some((kind, role)) =>
      b.columns.get(ph.name).flatMap { column =>
        metadata.definition.indexes.find(ix => ix.kind == kind && ix.paths.exists(_.sameAs(column, resolver)))
          .flatMap(_.metadataColumns.get(role))
      }
  }
}

object RuleTranslator {
  def apply(index: IndexSpec, metadata: LoadedMetadata, resolver: Resolver): RuleTranslator =
    // Listing runs on the driver inside the query's session: its parser and analyzer resolve clauses.
    RuleTranslator(index, metadata, resolver, SparkSession.active)

  /**
   * An index's translator. An index that stores rules (types defined in Python, UDF mappings)
   * is interpreted from them whatever its kind is called; any other is a built-in kind's
   * ([[LeafTranslator.builtIn]]), or None for an unknown kind (say, from a newer Skipstone):
   * its files are read.
   */
  def forIndex(index: IndexSpec, metadata: LoadedMetadata, resolver: Resolver): Option[LeafTranslator] =
    if (StoredRule.isRuleBased(index)) Some(RuleTranslator(index, metadata, resolver))
    else LeafTranslator.builtIn(index, metadata, resolver)
}
