package io.skipstone.metadata

import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression, GetStructField}
import org.apache.spark.sql.types.StructType

/**
 * A column of the data as the exact field names from the top-level column down: `Seq("a", "b")`
 * is field `b` of struct `a`, `Seq("a.b")` the top-level column literally named `a.b`. Paths
 * are never dotted strings, which cannot tell those two apart.
 *
 * This is the one place that decides whether a predicate's expression reads an indexed column:
 * every translator, rule pattern and footer lookup goes through [[ColumnPath.of]] and [[sameAs]].
 */
case class ColumnPath(parts: Seq[String]) {
  require(parts.nonEmpty, "a column path has at least one name")

  /** Same column under the session's case rules (`spark.sql.caseSensitive`), part by part. */
  def sameAs(other: ColumnPath, resolver: Resolver): Boolean =
    parts.length == other.parts.length && parts.zip(other.parts).forall { case (a, b) => resolver(a, b) }

  /** As SQL would write it: parts with dots or backticks are quoted. */
  override def toString: String = parts.map(ColumnPath.quoteIfNeeded).mkString(".")
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
   * The name among `known` (a schema's top-level names) that `name` means under the session's
   * case rules (`spark.sql.caseSensitive`, as `resolver`): the one spelled exactly so, else the
   * only one the resolver matches. None when none does, or several do and none exactly.
   */
  def resolveName(name: String, known: Seq[String], resolver: Resolver): Option[String] =
    known.find(_ == name).orElse(known.filter(resolver(_, name)) match {
      case Seq(only) => Some(only)
      case _ => None
    })

  /** Paths written by Skipstone before they were stored as name lists: dots meant nesting. */
  def fromDotted(dotted: String): ColumnPath = ColumnPath(dotted.split('.').toSeq)

  private def quoteIfNeeded(name: String): String =
    if (name.matches("[A-Za-z_][A-Za-z0-9_]*")) name else "`" + name.replace("`", "``") + "`"
}
