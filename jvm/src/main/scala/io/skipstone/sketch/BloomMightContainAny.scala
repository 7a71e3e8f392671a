package io.skipstone.sketch

import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{BooleanType, DataType}

/**
 * FALSE when a file's stored bloom filter proves none of `keys` is among its values; NULL when
 * the file has no filter (e.g. a Hybrid index that listed the values instead).
 */
case class BloomMightContainAny(filter: Expression, keys: Seq[BloomKey]) extends UnaryExpression with CodegenFallback {
  override def child: Expression = filter
  override def dataType: DataType = BooleanType

  override protected def nullSafeEval(bytes: Any): Any = {
    val bloom = BloomFilters.fromBytes(bytes.asInstanceOf[Array[Byte]])
    keys.exists(_.in(bloom))
  }

  override protected def withNewChildInternal(c: Expression): BloomMightContainAny = copy(filter = c)

  override def toString: String = s"$filter might contain any of ${keys.length} values"
}
