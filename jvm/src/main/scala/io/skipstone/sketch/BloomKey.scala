package io.skipstone.sketch

import java.nio.charset.StandardCharsets

import org.apache.spark.sql.catalyst.util.CollationFactory
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.util.sketch.BloomFilter

/**
 * The one place that decides how a value enters a bloom filter, used both when collecting and
 * when querying, so the two always hash alike. Values equal under SQL `=` get equal keys: every
 * integral, date and timestamp value is hashed as a long; floats as the double they widen to,
 * with -0.0 and 0.0 (and every NaN) folded together; decimals by their value, not their scale;
 * strings and binaries by their bytes.
 */
sealed trait BloomKey {
  def put(filter: BloomFilter): Unit
  def in(filter: BloomFilter): Boolean
}

object BloomKey {
  final case class LongKey(value: Long) extends BloomKey {
    def put(filter: BloomFilter): Unit = filter.putLong(value)
    def in(filter: BloomFilter): Boolean = filter.mightContainLong(value)
  }
  final case class BytesKey(value: Array[Byte]) extends BloomKey {
    def put(filter: BloomFilter): Unit = filter.putBinary(value)
    def in(filter: BloomFilter): Boolean = filter.mightContainBinary(value)
  }

  def supports(dataType: DataType): Boolean = dataType match {
    case s: StringType => s.collationId == CollationFactory.UTF8_BINARY_COLLATION_ID
    case ByteType | ShortType | IntegerType | LongType | _: DecimalType | FloatType | DoubleType | BooleanType | DateType |
         TimestampType | TimestampNTZType | BinaryType => true
    case _ => false
  }

  /** The key of a non-NULL value in Catalyst's internal representation of `dataType`. */
  def of(value: Any, dataType: DataType): BloomKey = (value, dataType) match {
    case (v: Byte, _) => LongKey(v.toLong)
    case (v: Short, _) => LongKey(v.toLong)
    case (v: Int, _) => LongKey(v.toLong)
    case (v: Long, _) => LongKey(v)
    case (v: Boolean, _) => LongKey(if (v) 1L else 0L)
    case (v: Float, _) => ofDouble(v.toDouble)
    case (v: Double, _) => ofDouble(v)
    case (v: Decimal, _) => BytesKey(v.toJavaBigDecimal.stripTrailingZeros.toPlainString.getBytes(StandardCharsets.UTF_8))
    case (v: UTF8String, _) => BytesKey(v.getBytes)
    case (v: Array[Byte], _) => BytesKey(v)
    case _ => throw new IllegalArgumentException(s"a bloom filter cannot hold values of type ${dataType.simpleString}")
  }

  private def ofDouble(d: Double): BloomKey =
    if (d.isNaN) LongKey(java.lang.Double.doubleToLongBits(Double.NaN))
    else if (d == 0.0) LongKey(0L)
    else LongKey(java.lang.Double.doubleToLongBits(d))
}
