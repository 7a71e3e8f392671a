package io.skipstone.sketch

import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.types.{ArrayType, BinaryType, DataType}

/**
 * `skipstone_bloom_filter_of(values, fpp)`: a bloom filter sized for exactly the values of an
 * array (a file's distinct values), hashed like [[BloomFilterAggregate]]. Hybrid indexes use
 * it for files with too many distinct values to list.
 */
case class BloomFilterOfValues(values: Expression, fpp: Double) extends UnaryExpression with CodegenFallback {
  override def child: Expression = values
  override def dataType: DataType = BinaryType

  override protected def nullSafeEval(input: Any): Any = {
    val elementType = values.dataType.asInstanceOf[ArrayType].elementType
    val array = input.asInstanceOf[ArrayData]
    val filter = BloomFilters.create(array.numElements().toLong, fpp)
    (0 until array.numElements()).filterNot(array.isNullAt).foreach { i =>
      BloomKey.of(array.get(i, elementType), elementType).put(filter)
    }
    BloomFilters.toBytes(filter)
  }

  override protected def withNewChildInternal(c: Expression): BloomFilterOfValues = copy(values = c)
}

object BloomFilterOfValues {
  val Name = "skipstone_bloom_filter_of"
}
