package io.skipstone.indexing

import java.math.BigInteger

import org.apache.parquet.column.statistics.Statistics
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.LogicalTypeAnnotation.{DecimalLogicalTypeAnnotation, TimeUnit, TimestampLogicalTypeAnnotation}
import org.apache.parquet.schema.PrimitiveType
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Reading a Parquet column chunk's min/max statistics as Spark values of the column's type.
 *
 * Only combinations whose Parquet ordering equals Spark's are accepted. Floating columns are
 * refused: writers leave NaN out of min/max, yet Spark orders NaN above every double, so a
 * footer's max is not an upper bound (a `x > c` query would miss NaN rows).
 */
object FooterValues {
  def supported(dataType: DataType): Boolean = dataType match {
    case ByteType | ShortType | IntegerType | LongType | DateType | TimestampType | TimestampNTZType |
         StringType | BooleanType => true
    case _: DecimalType => true
    case _ => false
  }

  /** (min, max) as Catalyst values, or None if this chunk's statistics cannot be trusted here. */
  def minMax(stats: Statistics[_], physical: PrimitiveType, dataType: DataType): Option[(Any, Any)] =
    convert(physical, dataType).map(f => (f(stats.genericGetMin(), false), f(stats.genericGetMax(), true)))

  private def convert(physical: PrimitiveType, dataType: DataType): Option[(Any, Boolean) => Any] = {
    val name = physical.getPrimitiveTypeName
    val logical = Option(physical.getLogicalTypeAnnotation)
    (dataType, name) match {
      case (ByteType, INT32) => Some((v, _) => v.asInstanceOf[Integer].byteValue())
      case (ShortType, INT32) => Some((v, _) => v.asInstanceOf[Integer].shortValue())
      case (IntegerType | DateType, INT32) => Some((v, _) => v.asInstanceOf[Integer].intValue())
      case (LongType, INT64) => Some((v, _) => v.asInstanceOf[java.lang.Long].longValue())
      case (BooleanType, BOOLEAN) => Some((v, _) => v.asInstanceOf[java.lang.Boolean].booleanValue())
      case (StringType, BINARY) => Some((v, _) => UTF8String.fromBytes(v.asInstanceOf[Binary].getBytes))
      case (TimestampType | TimestampNTZType, INT64) => logical.collect {
        case t: TimestampLogicalTypeAnnotation => micros(t.getUnit)
      }
      case (d: DecimalType, INT32 | INT64 | FIXED_LEN_BYTE_ARRAY | BINARY) => logical.collect {
        // parquet-mr drops legacy binary statistics whose sort order was unsigned, so what is
        // left orders decimals by signed value, as Spark does.
        case a: DecimalLogicalTypeAnnotation if a.getScale == d.scale =>
          (v: Any, _: Boolean) => {
            val unscaled = v match {
              case b: Binary => new BigInteger(b.getBytes)
              case n: Number => BigInteger.valueOf(n.longValue())
            }
            Decimal(new java.math.BigDecimal(unscaled, d.scale), d.precision, d.scale)
          }
      }
      case _ => None
    }
  }

  /** Timestamps in micros; coarser units scale up exactly, nanos round outward. */
  private def micros(unit: TimeUnit): (Any, Boolean) => Any = {
    (v: Any, isMax: Boolean) =>
      val raw = v.asInstanceOf[java.lang.Long].longValue()
      unit match {
        case TimeUnit.MILLIS => raw * 1000L
        case TimeUnit.MICROS => raw
        case TimeUnit.NANOS => if (isMax) Math.floorDiv(raw + 999L, 1000L) else Math.floorDiv(raw, 1000L)
      }
  }
}
