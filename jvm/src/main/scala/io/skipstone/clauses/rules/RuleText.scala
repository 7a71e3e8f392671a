package io.skipstone.clauses.rules

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.UnresolvedNamedLambdaVariable
import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * A `{name}` in a rule's SQL text.
 *
 *  - `{col}`, `{col0}`, `{col1}`, ...: the index's own columns, in order (`col` is `col0`);
 *  - `{x:kind.role}`: in a clause, the `role` metadata column of the dataset's `kind` index on
 *    the column that `{x}` matched in the pattern (UDF mappings use this);
 *  - any other name: in a pattern, what it matched (a constant, or a column for the form
 *    above); in a clause, that constant, or else the index's role of that name.
 */
case class Placeholder(name: String, role: Option[(String, String)]) {
  def indexColumn: Option[Int] = name match {
    case "col" => Some(0)
    case RuleText.ColumnN(n) => Some(n.toInt)
    case _ => None
  }
}

/** Rule text with its placeholders turned into identifiers Spark's SQL parser accepts. */
case class RuleText(sql: String, placeholders: Map[String, Placeholder]) {
  def placeholder(e: Expression): Option[Placeholder] = RuleText.identifier(e).flatMap(placeholders.get)
  def names: Set[String] = placeholders.values.map(_.name).toSet
}

object RuleText {
  private val Brace = """\{([A-Za-z_][A-Za-z0-9_]*)(?::([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*))?\}""".r
  private[rules] val ColumnN = """col(\d+)""".r

  /** A one-part name as parsed: inside a lambda body the parser makes every name a lambda variable. */
  def identifier(e: Expression): Option[String] = e match {
    case UnresolvedAttribute(Seq(id)) => Some(id)
    case UnresolvedNamedLambdaVariable(Seq(id)) => Some(id)
    case _ => None
  }

  def apply(text: String): RuleText = {
    val found = Brace.findAllMatchIn(text).toSeq
      .map(m => m.matched -> Placeholder(m.group(1), Option(m.group(2)).map(kind => (kind, m.group(3)))))
      .distinctBy(_._1)
    val ids = found.zipWithIndex.map { case ((brace, _), i) => brace -> s"__skipstone_placeholder_${i}__" }.toMap
    val sql = Brace.replaceAllIn(text, m => java.util.regex.Matcher.quoteReplacement(s"`${ids(m.matched)}`"))
    RuleText(sql, found.map { case (brace, p) => ids(brace) -> p }.toMap)
  }
}
