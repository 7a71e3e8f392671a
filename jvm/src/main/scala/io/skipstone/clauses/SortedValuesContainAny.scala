package io.skipstone.clauses

import java.util.Arrays

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

  override protected def nullSafeEval(input: Any): Any = {
    val stored = input.asInstanceOf[ArrayData].toObjectArray(elementType)
    sortedConstants.exists(c => Arrays.binarySearch(stored, c, ordering) >= 0)
  }

  override protected def withNewChildInternal(c: Expression): SortedValuesContainAny = copy(values = c)

  override def toString: String = s"$values contains any of ${sortedConstants.length} values"
}
