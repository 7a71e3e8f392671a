package io.skipstone.clauses

import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Cast, Expression, GetStructField}
import org.apache.spark.sql.types._

/**
 * A reference to an indexed column inside a predicate, possibly under casts Spark inserted.
 *
 * @param path  the column's name; nested struct fields as a dotted path
 * @param lift  applies the same casts to a metadata value of the column, so that e.g.
 *              `CAST(i AS DOUBLE) > 2.5` can be answered by `CAST(max_i AS DOUBLE) > 2.5`
 */
case class ColumnRef(path: String, lift: Expression => Expression)

object ColumnRef {
  /** Only order-preserving casts may be looked through: min and max stay min and max. */
  def unapply(e: Expression): Option[ColumnRef] = e match {
    case c: Cast if preservesOrder(c.child.dataType, c.dataType) =>
      unapply(c.child).map(inner => ColumnRef(inner.path, m => c.withNewChildren(Seq(inner.lift(m)))))
    case other => plainPath(other).map(ColumnRef(_, identity))
  }

  /** A column or nested field with no casts, e.g. for equality-only index types. */
  def plainPath(e: Expression): Option[String] = e match {
    case a: AttributeReference => Some(a.name)
    case GetStructField(child, _, Some(name)) => plainPath(child).map(p => s"$p.$name")
    case _ => None
  }

  def preservesOrder(from: DataType, to: DataType): Boolean = (from, to) match {
    case (f, t) if f == t => true
    case (_: NumericType, DoubleType) => true
    case (_: NumericType, _: NumericType) => Cast.canUpCast(from, to)
    case (DateType, TimestampType | TimestampNTZType) => true
    case _ => false
  }
}
