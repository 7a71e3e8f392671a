package io.skipstone.clauses

import org.apache.spark.sql.catalyst.analysis.Resolver

import io.skipstone.metadata.{IndexSpec, LoadedMetadata}

/** Prefix(col, length): `LIKE 'p%'`, `StartsWith`, `=`, `IN` from the distinct prefixes per file. */
object PrefixTranslator {
  def apply(index: IndexSpec, metadata: LoadedMetadata, resolver: Resolver): LeafTranslator =
    AffixTranslator(index, metadata, resolver, Side.Start)
}
