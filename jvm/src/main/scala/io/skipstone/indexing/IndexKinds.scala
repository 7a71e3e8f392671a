package io.skipstone.indexing

/** Every kind this version builds, by the name index.json stores. */
object IndexKinds {
  private val builtIn: Map[String, IndexKind] = Map(
    "minmax" -> MinMaxKind, "gaplist" -> GapListKind,
    "valuelist" -> ValueListKind, "bloomfilter" -> BloomFilterKind, "hybrid" -> HybridKind,
    "prefix" -> PrefixKind, "suffix" -> SuffixKind,
    "formatted" -> FormattedKind, "metricdist" -> MetricDistKind, "geobox" -> GeoBoxKind,
    "udf_mapping" -> UdfMappingKind)

  def names: Seq[String] = builtIn.keys.toSeq.sorted

  /** The kind of a request: a built-in one, or a user kind whose params carry its rules. */
  def of(request: IndexRequest): IndexKind = builtIn.getOrElse(request.kind,
    if (RuleKind.isRuleBased(request.params)) StoredRuleKind
    else throw new IndexBuildError(
      s"index kind '${request.kind}' is not known to this version of Skipstone (built-in kinds: ${names.mkString(", ")}; " +
        "a user kind needs its roles and rules in params)"))

  /** How messages and statistics show the index. */
  def describe(request: IndexRequest): String = request.name.getOrElse(of(request).describe(request))
}
