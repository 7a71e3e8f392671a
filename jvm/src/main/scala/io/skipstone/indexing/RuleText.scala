package io.skipstone.indexing

import scala.collection.immutable.ListMap

/**
 * Roles and rules of the built-in kinds written as data, as the params index.json stores them
 * (`role.<name>.type|sql|python`, `rule.<n>.pattern|mayBeTrue|mayBeFalse`). The query side
 * reads them like any user kind's.
 */
object RuleText {
  case class Rule(pattern: String, mayBeTrue: String, mayBeFalse: Option[String] = None)
  case class Role(name: String, sqlType: String, sql: Option[String], python: Option[String] = None)

  def params(roles: Seq[Role], rules: Seq[Rule]): ListMap[String, String] =
    ListMap.from(roles.flatMap { r =>
      Seq(s"role.${r.name}.type" -> r.sqlType) ++ r.sql.map(s"role.${r.name}.sql" -> _) ++ r.python.map(s"role.${r.name}.python" -> _)
    } ++ rules.zipWithIndex.flatMap { case (r, n) =>
      Seq(s"rule.$n.pattern" -> r.pattern, s"rule.$n.mayBeTrue" -> r.mayBeTrue) ++ r.mayBeFalse.map(s"rule.$n.mayBeFalse" -> _)
    })

  /** Whether the request already carries roles or rules (the Python API sends them). */
  def hasDefinitions(params: Map[String, String]): Boolean = params.keys.exists(k => k.startsWith("role.") || k.startsWith("rule."))

  /**
   * Rules for `=`, `<`, `<=`, `>`, `>=` and `IN` on `expression`, given SQL for its smallest
   * (`lo`) and largest (`hi`) value per file; `wrap` turns each range test into the clause.
   */
  def range(e: String, lo: String, hi: String, wrap: String => String = c => s"coalesce($c, false)"): Seq[Rule] = Seq(
    Rule(s"$e = {v}", wrap(s"$lo <= {v} AND {v} <= $hi"), Some(wrap(s"NOT ($lo = {v} AND $hi = {v})"))),
    Rule(s"$e < {v}", wrap(s"$lo < {v}"), Some(wrap(s"$hi >= {v}"))),
    Rule(s"$e <= {v}", wrap(s"$lo <= {v}"), Some(wrap(s"$hi > {v}"))),
    Rule(s"$e > {v}", wrap(s"$hi > {v}"), Some(wrap(s"$lo <= {v}"))),
    Rule(s"$e >= {v}", wrap(s"$hi >= {v}"), Some(wrap(s"$lo < {v}"))),
    Rule(s"$e IN ({vs})", wrap(s"exists({vs}, x -> $lo <= x AND x <= $hi)")))
}
