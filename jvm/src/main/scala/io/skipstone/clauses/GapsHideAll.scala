package io.skipstone.clauses

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.trees.TernaryLike
import org.apache.spark.sql.catalyst.util.{ArrayData, TypeUtils}
import org.apache.spark.sql.types.{ArrayType, BooleanType, DataType, StructType}

/**
 * TRUE when no interval can hold a value of the file: each lies below its min, above its max,
 * or inside one of its gaps, the open intervals (lo, hi) between consecutive distinct values.
 * A file with no non-NULL value (NULL min) hides everything; NULL gaps hide nothing.
 *
 * @param lift the predicate's view of a column value (slot 0), e.g. a widening cast; gaps stay
 *             empty under any order-preserving cast, so metadata values are lifted first
 */
case class GapsHideAll(gaps: Expression, min: Expression, max: Expression, lift: Expression, intervals: Seq[Interval])
  extends Expression with TernaryLike[Expression] with CodegenFallback {

  override def first: Expression = gaps
  override def second: Expression = min
  override def third: Expression = max
  override def dataType: DataType = BooleanType
  override def nullable: Boolean = false

  @transient private lazy val columnType =
    gaps.dataType.asInstanceOf[ArrayType].elementType.asInstanceOf[StructType].head.dataType
  @transient private lazy val ordering = TypeUtils.getInterpretedOrdering(lift.dataType)

  private def lifted(v: Any): Any = lift.eval(InternalRow(v))

  override def eval(input: InternalRow): Any = {
    val (lo, hi) = (min.eval(input), max.eval(input))
    if (lo == null || hi == null) true
    else {
      val array = Option(gaps.eval(input).asInstanceOf[ArrayData])
      val holes = array.toSeq.flatMap { a =>
        (0 until a.numElements()).filterNot(a.isNullAt).map { i =>
          val gap = a.getStruct(i, 2)
          (Option(lifted(gap.get(0, columnType))), Option(lifted(gap.get(1, columnType))))
        }
      }
      // Below the min and above the max are holes without one end.
      val all = (None, Option(lifted(lo))) +: (Option(lifted(hi)), None) +: holes
      intervals.forall(interval => all.exists { case (l, h) => inside(interval, l, h) })
    }
  }

  /** Whether `interval` lies within the open interval (lo, hi); a missing end is unbounded. */
  private def inside(interval: Interval, lo: Option[Any], hi: Option[Any]): Boolean = {
    val aboveLo = lo.forall(l => interval.lower.exists { b =>
      val c = ordering.compare(b.value, l)
      c > 0 || (c == 0 && !b.inclusive)
    })
    val belowHi = hi.forall(h => interval.upper.exists { b =>
      val c = ordering.compare(b.value, h)
      c < 0 || (c == 0 && !b.inclusive)
    })
    aboveLo && belowHi
  }

  override protected def withNewChildrenInternal(g: Expression, lo: Expression, hi: Expression): GapsHideAll =
    copy(gaps = g, min = lo, max = hi)

  override def toString: String = s"gaps of $gaps hide ${intervals.length} intervals"
}
