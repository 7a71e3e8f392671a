package io.skipstone.clauses

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.util.{ArrayData, TypeUtils}
import org.apache.spark.sql.types.{ArrayType, BooleanType, DataType, StructType}

/**
 * TRUE when every interval lies inside one of a file's gaps: open intervals (lo, hi) between
 * consecutive distinct values of the column, which no row's value falls into.
 *
 * @param lift the predicate's view of a column value (slot 0), e.g. a widening cast; gaps stay
 *             empty under any order-preserving cast, so gap ends are lifted before comparing
 */
case class GapsHideAll(gaps: Expression, lift: Expression, intervals: Seq[Interval])
  extends UnaryExpression with CodegenFallback {

  override def child: Expression = gaps
  override def dataType: DataType = BooleanType

  @transient private lazy val columnType =
    gaps.dataType.asInstanceOf[ArrayType].elementType.asInstanceOf[StructType].head.dataType
  @transient private lazy val ordering = TypeUtils.getInterpretedOrdering(lift.dataType)

  override protected def nullSafeEval(input: Any): Any = {
    val array = input.asInstanceOf[ArrayData]
    val lifted = (0 until array.numElements()).flatMap { i =>
      val gap = array.getStruct(i, 2)
      val lo = lift.eval(InternalRow(gap.get(0, columnType)))
      val hi = lift.eval(InternalRow(gap.get(1, columnType)))
      if (lo == null || hi == null) None else Some((lo, hi))
    }
    intervals.forall(interval => lifted.exists { case (lo, hi) => inside(interval, lo, hi) })
  }

  private def inside(interval: Interval, lo: Any, hi: Any): Boolean = (interval.lower, interval.upper) match {
    case (Some(l), Some(u)) =>
      val fromLo = ordering.compare(l.value, lo)
      val toHi = ordering.compare(u.value, hi)
      (fromLo > 0 || (fromLo == 0 && !l.inclusive)) && (toHi < 0 || (toHi == 0 && !u.inclusive))
    case _ => false
  }

  override protected def withNewChildInternal(c: Expression): GapsHideAll = copy(gaps = c)

  override def toString: String = s"gaps of $gaps hide ${intervals.length} intervals"
}
