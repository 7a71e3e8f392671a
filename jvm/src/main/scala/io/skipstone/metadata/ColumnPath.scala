package io.skipstone.metadata

import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression, GetStructField}
import org.apache.spark.sql.types.StructType

/**
 * A column of the data as the exact field names from the top-level column down: `Seq("a", "b")`
 * is field `b` of struct `a`, `Seq("a.b")` the top-level column literally named `a.b`. Paths
 * are never dotted strings, which cannot tell those two apart.
 *
 * This is the one place that decides column identity: whether a predicate's expression reads an
 * indexed column (every translator, rule pattern and footer lookup goes through [[ColumnPath.of]]
 * and [[sameAs]]), and which of a schema's columns a name given by a user or a file means
 * ([[ColumnPath.pick]]: layout columns, appended rows, Parquet footers). Index requests are
 * parsed by the indexing package's `ColumnResolver` (backticks, dots), which refuses a name that
 * several columns match in another case, as Spark's analyzer does, where the table paths take
 * the exact spelling.
 */
case class ColumnPath(parts: Seq[String]) {
  require(parts.nonEmpty, "a column path has at least one name")

  /** Same column under the session's case rules (`spark.sql.caseSensitive`), part by part. */
  def sameAs(other: ColumnPath, resolver: Resolver): Boolean =
    parts.length == other.parts.length && parts.zip(other.parts).forall { case (a, b) => resolver(a, b) }

  /** As SQL would write it: parts with dots or backticks are quoted. */
  override def toString: String = parts.map(ColumnPath.quoteIfNeeded).mkString(".")

  /** SQL text that names exactly this path, whatever its names hold: every part quoted (`` `a`.`b` ``). */
  def sql: String = parts.map(ColumnPath.quoted).mkString(".")
}

object ColumnPath {
  /** The path an expression reads when it is a column or a nested field of one, with no casts. */
  def of(e: Expression): Option[ColumnPath] = e match {
    case a: AttributeReference => Some(ColumnPath(Seq(a.name)))
    case GetStructField(child, ordinal, _) => child.dataType match {
      // The struct's own field name, not the optional name the expression carries.
      case s: StructType => of(child).map(p => ColumnPath(p.parts :+ s(ordinal).name))
      case _ => None
    }
    case _ => None
  }

  /** Whether `e` is exactly the column `path` (no casts), under the session's case rules. */
  def isColumn(e: Expression, path: ColumnPath, resolver: Resolver): Boolean =
    of(e).exists(_.sameAs(path, resolver))

  /**
   * The one of `candidates` that `path` names under the session's case rules (`resolver`, from
   * `spark.sql.caseSensitive`): the one spelled exactly so, else the only one the resolver
   * matches part by part. None when none does, or several do and none exactly (a table may hold
   * both `Mixed` and `mixed`).
   */
  def pick[T](path: ColumnPath, candidates: Seq[T], resolver: Resolver)(pathOf: T => ColumnPath): Option[T] =
    candidates.find(pathOf(_) == path).orElse(candidates.filter(c => pathOf(c).sameAs(path, resolver)) match {
      case Seq(only) => Some(only)
      case _ => None
    })

  /** [[pick]] among a schema's top-level names. */
  def resolveName(name: String, known: Seq[String], resolver: Resolver): Option[String] =
    pick(ColumnPath(Seq(name)), known, resolver)(n => ColumnPath(Seq(n)))

  /** Spark's resolver for a case rule given as a flag (code that runs where no session conf is). */
  def resolver(caseSensitive: Boolean): Resolver =
    if (caseSensitive) org.apache.spark.sql.catalyst.analysis.caseSensitiveResolution
    else org.apache.spark.sql.catalyst.analysis.caseInsensitiveResolution

  /**
   * A top-level column's name as index definitions take it: in backticks only when a dot or a
   * backtick would change the path it names (`a.b` would be field b of a struct a). Kept minimal
   * so that stored definitions read as written; Python's `skipstone.table.columns.quoted_if_needed`
   * writes the same for the tables Python creates.
   */
  def definitionName(name: String): String = if (name.contains(".") || name.contains("`")) quoted(name) else name

  /** Paths written by Skipstone before they were stored as name lists: dots meant nesting. */
  def fromDotted(dotted: String): ColumnPath = ColumnPath(dotted.split('.').toSeq)

  private def quoteIfNeeded(name: String): String = if (name.matches("[A-Za-z_][A-Za-z0-9_]*")) name else quoted(name)

  private def quoted(name: String): String = "`" + name.replace("`", "``") + "`"
}
