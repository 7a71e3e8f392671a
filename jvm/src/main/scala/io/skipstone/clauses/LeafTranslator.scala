package io.skipstone.clauses

import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions.Expression

import io.skipstone.clauses.rules.{RuleTranslator, StoredRule}
import io.skipstone.metadata.{IndexSpec, LoadedMetadata}

/** One index's ability to answer predicate leaves with clauses over its metadata columns. */
trait LeafTranslator {
  def index: IndexSpec
  def translate(leaf: Expression): Option[LeafClauses]
}

object LeafTranslator {
  type Factory = (IndexSpec, LoadedMetadata, Resolver) => LeafTranslator

  /** Built-in kinds by the name stored in index.json; one line per kind. */
  private val kinds: Map[String, Factory] = Map(
    "minmax" -> MinMaxTranslator.apply,
  )

  /**
   * An index that stores rules (types defined in Python, UDF mappings) is interpreted from
   * them whatever its kind is called. An unknown kind (say, from a newer Skipstone) answers
   * nothing: its files are read.
   */
  def forIndex(index: IndexSpec, metadata: LoadedMetadata, resolver: Resolver): Option[LeafTranslator] =
    if (StoredRule.isRuleBased(index)) Some(RuleTranslator(index, metadata, resolver))
    else kinds.get(index.kind).map(_(index, metadata, resolver))
}
