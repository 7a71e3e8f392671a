package io.skipstone.sketch

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.aggregate.TypedImperativeAggregate
import org.apache.spark.sql.catalyst.trees.UnaryLike
import org.apache.spark.sql.types.{BinaryType, DataType}
import org.apache.spark.util.sketch.BloomFilter

/**
 * `skipstone_bloom_filter(column, expected_items, fpp)`: a bloom filter of a file's non-NULL
 * values, serialised in Spark's format. Values are hashed by [[BloomKey]]. A file without
 * non-NULL values gets an empty filter (it answers "absent" for everything), not NULL, since
 * NULL metadata means "unknown".
 */
case class BloomFilterAggregate(
    child: Expression,
    expectedItems: Long,
    fpp: Double,
    mutableAggBufferOffset: Int = 0,
    inputAggBufferOffset: Int = 0)
  extends TypedImperativeAggregate[BloomFilter] with UnaryLike[Expression] {

  override def dataType: DataType = BinaryType
  override def nullable: Boolean = false
  override def prettyName: String = BloomFilterAggregate.Name

  override def checkInputDataTypes(): TypeCheckResult =
    if (BloomKey.supports(child.dataType)) TypeCheckResult.TypeCheckSuccess
    else TypeCheckResult.TypeCheckFailure(s"$prettyName cannot index values of type ${child.dataType.simpleString}")

  override def createAggregationBuffer(): BloomFilter = BloomFilters.create(expectedItems, fpp)

  override def update(buffer: BloomFilter, input: InternalRow): BloomFilter = {
    val value = child.eval(input)
    if (value != null) BloomKey.of(value, child.dataType).put(buffer)
    buffer
  }

  override def merge(buffer: BloomFilter, other: BloomFilter): BloomFilter = buffer.mergeInPlace(other)
  override def eval(buffer: BloomFilter): Any = BloomFilters.toBytes(buffer)
  override def serialize(buffer: BloomFilter): Array[Byte] = BloomFilters.toBytes(buffer)
  override def deserialize(bytes: Array[Byte]): BloomFilter = BloomFilters.fromBytes(bytes)

  override def withNewMutableAggBufferOffset(offset: Int): BloomFilterAggregate = copy(mutableAggBufferOffset = offset)
  override def withNewInputAggBufferOffset(offset: Int): BloomFilterAggregate = copy(inputAggBufferOffset = offset)
  override protected def withNewChildInternal(c: Expression): BloomFilterAggregate = copy(child = c)
}

object BloomFilterAggregate {
  val Name = "skipstone_bloom_filter"
}
