package io.skipstone.clauses

import scala.util.Try

import org.apache.spark.sql.catalyst.expressions.{Cast, EvalMode, Expression, Literal}
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types._

import io.skipstone.metadata.ColumnPath

/**
 * The indexed column, possibly under casts that map distinct values to distinct values (so
 * `CAST(i AS BIGINT) = 5` holds for exactly one value of `i`). Equality-only index types
 * (bloom filters, hybrids) look up that value: `preimage` maps a constant of the predicate's
 * type back to the column's, or to None when no column value casts to it (`CAST(i AS DOUBLE)
 * = 2.5`).
 */
case class InjectiveColumn(path: ColumnPath, columnType: DataType, preimage: Any => Option[Any])

object InjectiveColumn {
  def unapply(e: Expression): Option[InjectiveColumn] = e match {
    case c: Cast if injective(c.child.dataType, c.dataType) =>
      unapply(c.child).map(inner => inner.copy(preimage = v => castBack(c, v).flatMap(inner.preimage)))
    case other => ColumnPath.of(other).map(InjectiveColumn(_, other.dataType, v => Some(v)))
  }

  private def injective(from: DataType, to: DataType): Boolean = (from, to) match {
    case (f, t) if f == t => true
    case (ByteType | ShortType | IntegerType | LongType, ByteType | ShortType | IntegerType | LongType | _: DecimalType) =>
      Cast.canUpCast(from, to)
    case (ByteType | ShortType | IntegerType | FloatType, DoubleType) => true
    case (_: DecimalType, _: DecimalType) => Cast.canUpCast(from, to)
    case (DateType, TimestampType | TimestampNTZType) => true
    case _ => false
  }

  /** The value of the cast's input that the cast maps to `v`, checked by casting it forward. */
  private def castBack(c: Cast, v: Any): Option[Any] = {
    val back = Cast(Literal.create(v, c.dataType), c.child.dataType, c.timeZoneId, EvalMode.LEGACY)
    Try(back.eval()).toOption.flatMap(Option(_)).filter { u =>
      val forward = c.withNewChildren(Seq(Literal.create(u, c.child.dataType))).eval()
      forward != null && TypeUtils.getInterpretedOrdering(c.dataType).equiv(forward, v)
    }
  }
}
