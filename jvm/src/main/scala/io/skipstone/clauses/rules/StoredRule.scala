package io.skipstone.clauses.rules

import io.skipstone.metadata.IndexSpec

/**
 * One "predicate pattern -> clause template" rule as stored in an index's params:
 * `rule.<n>.pattern`, `rule.<n>.mayBeTrue` and optionally `rule.<n>.mayBeFalse` (absent means
 * "may be FALSE: unknown", i.e. TRUE). Flat string keys keep index.json readable and let any
 * session, with or without Python, read the rules.
 */
case class StoredRule(number: Int, pattern: String, mayBeTrue: String, mayBeFalse: Option[String])

object StoredRule {
  private val Key = """rule\.(\d+)\.(pattern|mayBeTrue|mayBeFalse)""".r

  def isRuleBased(index: IndexSpec): Boolean = index.params.keys.exists(Key.matches)

  /** The index's rules in order; a rule missing its pattern or clause is left out. */
  def of(index: IndexSpec): Seq[StoredRule] =
    index.params.toSeq.collect { case (Key(n, part), text) => (n.toInt, part, text) }
      .groupBy(_._1).toSeq.sortBy(_._1).flatMap { case (n, parts) =>
        val byPart = parts.map { case (_, part, text) => part -> text }.toMap
        for (pattern <- byPart.get("pattern"); mayBeTrue <- byPart.get("mayBeTrue"))
          yield StoredRule(n, pattern, mayBeTrue, byPart.get("mayBeFalse"))
      }
}
