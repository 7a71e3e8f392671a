package io.skipstone.clauses

import org.apache.spark.sql.catalyst.expressions.{Cast, Expression}
import org.apache.spark.sql.types._

import io.skipstone.metadata.ColumnPath

/**
 * A reference to an indexed column inside a predicate, possibly under casts Spark inserted.
 *
 * @param path  the column read (see [[ColumnPath]])
 * @param lift  applies the same casts to a metadata value of the column, so that e.g.
 *              `CAST(i AS DOUBLE) > 2.5` can be answered by `CAST(max_i AS DOUBLE) > 2.5`
 */
case class ColumnRef(path: ColumnPath, lift: Expression => Expression)

object ColumnRef {
  /** Only order-preserving casts may be looked through: min and max stay min and max. */
  def unapply(e: Expression): Option[ColumnRef] = e match {
    case c: Cast if preservesOrder(c.child.dataType, c.dataType) =>
      unapply(c.child).map(inner => ColumnRef(inner.path, m => c.withNewChildren(Seq(inner.lift(m)))))
    case other => ColumnPath.of(other).map(ColumnRef(_, identity))
  }

  def preservesOrder(from: DataType, to: DataType): Boolean = (from, to) match {
    case (f, t) if f == t => true
    case (_: NumericType, DoubleType) => true
    case (_: NumericType, _: NumericType) => Cast.canUpCast(from, to)
    case (DateType, TimestampType | TimestampNTZType) => true
    case _ => false
  }
}
