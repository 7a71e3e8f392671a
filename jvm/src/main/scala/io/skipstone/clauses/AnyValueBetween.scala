package io.skipstone.clauses

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Expression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types.{BooleanType, DataType}

/**
 * TRUE when some value of a sorted constant list lies in [lower, upper]: the test an IN list
 * needs against a file's min and max. Binary search keeps long lists (thousands of values,
 * as Spark's InSet carries) cheap per file.
 */
case class AnyValueBetween(lower: Expression, upper: Expression, sortedValues: IndexedSeq[Any])
  extends BinaryExpression with CodegenFallback {

  override def left: Expression = lower
  override def right: Expression = upper
  override def dataType: DataType = BooleanType

  @transient private lazy val ordering = TypeUtils.getInterpretedOrdering(lower.dataType)

  override protected def nullSafeEval(lo: Any, hi: Any): Any = {
    // first index whose value is >= lo
    var from = 0
    var to = sortedValues.length
    while (from < to) {
      val mid = (from + to) >>> 1
      if (ordering.lt(sortedValues(mid), lo)) from = mid + 1 else to = mid
    }
    from < sortedValues.length && ordering.lteq(sortedValues(from), hi)
  }

  override protected def withNewChildrenInternal(l: Expression, r: Expression): AnyValueBetween =
    copy(lower = l, upper = r)

  override def toString: String = s"any of ${sortedValues.length} values in [$lower, $upper]"
}

object AnyValueBetween {
  def sort(values: Iterable[Any], dataType: DataType): IndexedSeq[Any] =
    values.toIndexedSeq.sorted(TypeUtils.getInterpretedOrdering(dataType))
}
