package io.skipstone.clauses

import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions.Expression

import io.skipstone.metadata.{IndexSpec, LoadedMetadata}

/** One index's ability to answer predicate leaves with clauses over its metadata columns. */
trait LeafTranslator {
  def index: IndexSpec
  def translate(leaf: Expression): Option[LeafClauses]
}

object LeafTranslator {
  /** Built-in kinds by name; an unknown kind (from a newer Skipstone) answers nothing. */
  def forIndex(index: IndexSpec, metadata: LoadedMetadata, resolver: Resolver): Option[LeafTranslator] =
    index.kind match {
      case "minmax" => Some(MinMaxTranslator(index, metadata, resolver))
      case _ => None
    }
}
