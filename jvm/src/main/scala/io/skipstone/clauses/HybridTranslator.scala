package io.skipstone.clauses

import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions.Expression

import io.skipstone.metadata.{IndexSpec, LoadedMetadata}

/**
 * Hybrid: per file either the distinct values (role `values`, when there are at most the
 * index's threshold of them) or a bloom filter of them (role `bloom`), never both. Each file is
 * answered by whichever it has: the other side's clause is NULL there ("unknown"), and
 * FALSE AND NULL is FALSE, so the two answers simply combine.
 */
case class HybridTranslator(index: IndexSpec, metadata: LoadedMetadata, resolver: Resolver)
  extends LeafTranslator {

  private val list = ValueListTranslator(index, metadata, resolver)
  private val bloom = BloomFilterTranslator(index, metadata, resolver)

  override def translate(leaf: Expression): Option[LeafClauses] =
    (list.translate(leaf) ++ bloom.translate(leaf)).reduceOption(_ and _)
}
