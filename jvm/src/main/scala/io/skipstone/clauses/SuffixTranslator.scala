package io.skipstone.clauses

import org.apache.spark.sql.catalyst.analysis.Resolver

import io.skipstone.metadata.{IndexSpec, LoadedMetadata}

/** Suffix(col, length): `LIKE '%s'`, `EndsWith`, `=`, `IN` from the distinct suffixes per file. */
object SuffixTranslator {
  def apply(index: IndexSpec, metadata: LoadedMetadata, resolver: Resolver): LeafTranslator =
    AffixTranslator(index, metadata, resolver, Side.End)
}
