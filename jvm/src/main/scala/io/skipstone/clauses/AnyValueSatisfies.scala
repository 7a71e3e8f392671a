package io.skipstone.clauses

import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.types.{ArrayType, BooleanType, DataType, DoubleType, FloatType}

/**
 * TRUE when some value of a file's stored value array makes `test` evaluate to `outcome`
 * (TRUE, or FALSE for "may be false"); NULL when the array is NULL (not collected).
 *
 * Spark's `collect_set` folds -0.0 into 0.0, so a stored 0.0 stands for both zeros: a test that
 * tells them apart (e.g. through a cast to string) must see both.
 */
case class AnyValueSatisfies(values: Expression, test: ValueTest, outcome: Boolean)
  extends UnaryExpression with CodegenFallback {

  override def child: Expression = values
  override def dataType: DataType = BooleanType

  private def elementType: DataType = values.dataType.asInstanceOf[ArrayType].elementType

  private def candidates(v: Any): Seq[Any] = v match {
    case d: Double if d == 0.0 => Seq(0.0, -0.0)
    case f: Float if f == 0.0f => Seq(0.0f, -0.0f)
    case other => Seq(other)
  }

  override protected def nullSafeEval(input: Any): Any = {
    val array = input.asInstanceOf[ArrayData]
    val wanted = java.lang.Boolean.valueOf(outcome)
    (0 until array.numElements()).exists { i =>
      !array.isNullAt(i) && candidates(array.get(i, elementType)).exists(v => wanted == test.on(v))
    }
  }

  override protected def withNewChildInternal(c: Expression): AnyValueSatisfies = copy(values = c)

  override def toString: String = s"some value of $values makes ${test.test} $outcome"
}

object AnyValueSatisfies {
  /** TRUE when the test may be TRUE for some value in the array. */
  def mayBeTrue(values: Expression, test: ValueTest): Expression = AnyValueSatisfies(values, test, outcome = true)
  def mayBeFalse(values: Expression, test: ValueTest): Expression = AnyValueSatisfies(values, test, outcome = false)

}
