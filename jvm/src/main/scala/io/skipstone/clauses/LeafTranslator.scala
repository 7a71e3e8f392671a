package io.skipstone.clauses

import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions.Expression

import io.skipstone.metadata.{IndexSpec, LoadedMetadata}

/** One index's ability to answer predicate leaves with clauses over its metadata columns. */
trait LeafTranslator {
  def index: IndexSpec
  def translate(leaf: Expression): Option[LeafClauses]

  /**
   * A "may be TRUE" clause for a whole conjunction, for kinds whose metadata needs several
   * leaves at once (a gap can hide `x > 10 AND x < 20`, never either half). It is ANDed with
   * the leaves' own answers, so None (the default) loses nothing.
   */
  def conjunction(conjuncts: Seq[Expression]): Option[Expression] = None
}

object LeafTranslator {
  type Factory = (IndexSpec, LoadedMetadata, Resolver) => LeafTranslator

  /** Built-in kinds by the name stored in index.json; one line per kind. */
  private val kinds: Map[String, Factory] = Map(
    "minmax" -> MinMaxTranslator.apply,
    "valuelist" -> ValueListTranslator.apply,
    "bloomfilter" -> BloomFilterTranslator.apply,
    "hybrid" -> HybridTranslator.apply,
    "prefix" -> PrefixTranslator.apply,
    "suffix" -> SuffixTranslator.apply,
    "gaplist" -> GapListTranslator.apply,
  )

  /**
   * The translator of a built-in kind by its stored name. An unknown kind (say, from a newer
   * Skipstone) answers nothing: its files are read. Indexes that store rules are interpreted
   * from them whatever their kind is called: [[io.skipstone.clauses.rules.RuleTranslator.forIndex]]
   * decides, so that this package needs nothing from `rules` (issue 22).
   */
  def builtIn(index: IndexSpec, metadata: LoadedMetadata, resolver: Resolver): Option[LeafTranslator] =
    kinds.get(index.kind).map(_(index, metadata, resolver))
}
