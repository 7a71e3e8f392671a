package io.skipstone.clauses

import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.util.{ArrayData, TypeUtils}
import org.apache.spark.sql.types.{ArrayType, BooleanType, DataType}

/**
 * TRUE when a sorted stored value array and a sorted constant list share a value, under Spark's
 * ordering (so NaN equals NaN and 0.0 equals -0.0, as in SQL `=`); NULL when the array is NULL.
 * Binary search per constant keeps long IN lists and large value lists cheap.
 */
case class SortedValuesContainAny(values: Expression, sortedConstants: IndexedSeq[Any])
  extends UnaryExpression with CodegenFallback {

  override def child: Expression = values
  override def dataType: DataType = BooleanType

  @transient private lazy val elementType = values.dataType.asInstanceOf[ArrayType].elementType
  @transient private lazy val ordering = TypeUtils.getInterpretedOrdering(elementType)

  // Probes the stored array in place: copying thousands of values out per file and query
  // would cost far more than the O(log n) lookups.
  override protected def nullSafeEval(input: Any): Any = {
    val stored = input.asInstanceOf[ArrayData]
    sortedConstants.exists(c => contains(stored, c))
  }

  private def contains(stored: ArrayData, value: Any): Boolean = {
    var from = 0
    var to = stored.numElements()
    while (from < to) {
      val mid = (from + to) >>> 1
      val cmp = ordering.compare(stored.get(mid, elementType), value)
      if (cmp == 0) return true
      if (cmp < 0) from = mid + 1 else to = mid
    }
    false
  }

  override protected def withNewChildInternal(c: Expression): SortedValuesContainAny = copy(values = c)

  override def toString: String = s"$values contains any of ${sortedConstants.length} values"
}
