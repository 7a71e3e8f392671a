package io.skipstone.layout

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.util.CollationFactory
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._

/**
 * How a Spark column becomes a layout column: its kind, its encoded value, and the test
 * "encoded value <= cut" as a Spark expression. The one definition of the encoding in Spark:
 * the table's sample is drawn with [[encoded]] and rows are routed with [[atMost]], so a
 * block's rows are the rows its region describes.
 *
 * Numbers are themselves, dates days since the epoch, timestamps microseconds (never
 * truncated), strings and booleans their rank in the sample's sorted dictionary (a value
 * missing from it sits half-way between the ranks around it); NULL is -inf, NaN +inf. Every test
 * is TRUE or FALSE, never NULL, so each row takes exactly one branch of a tree.
 */
object LayoutEncoding {

  /**
   * A category's encoded value in a sorted dictionary of `size` values: its rank where
   * `compareAt(i)` (dictionary value i against it, negative when below) finds it equal, else
   * half-way between the ranks around it (how many values lie below, minus 0.5). The one rule
   * the sample's dictionary and the rows' routing both rank by.
   */
  def rank(size: Int, compareAt: Int => Int): Double = {
    var lo = 0 // a binary search for the first value not below it
    var hi = size
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (compareAt(mid) < 0) lo = mid + 1 else hi = mid
    }
    if (lo < size && compareAt(lo) == 0) lo.toDouble else lo - 0.5
  }

  /** The layout kind of a Spark type; None when a layout cannot order it (arrays, maps, binary...). */
  def kindOf(dataType: DataType): Option[ColumnKind] = dataType match {
    case ByteType | ShortType | IntegerType | LongType => Some(ColumnKind.Integer)
    case FloatType | DoubleType | _: DecimalType => Some(ColumnKind.Numeric)
    case DateType => Some(ColumnKind.Date)
    case TimestampType | TimestampNTZType => Some(ColumnKind.Timestamp)
    case BooleanType => Some(ColumnKind.Categorical)
    // collated strings order differently from the dictionary's byte order
    case s: StringType if s.collationId == CollationFactory.UTF8_BINARY_COLLATION_ID => Some(ColumnKind.Categorical)
    case _ => None
  }

  /** The encoded double of a non-categorical column: NULL -> -inf, NaN -> +inf. */
  def encoded(c: Column, dataType: DataType): Column = {
    val value = numeric(c, dataType).cast(DoubleType)
    val withNaN = dataType match {
      case FloatType | DoubleType => when(isnan(c), lit(Double.PositiveInfinity)).otherwise(value)
      case _ => value
    }
    when(c.isNull, lit(Double.NegativeInfinity)).otherwise(withNaN)
  }

  /** `encoded(c) <= cut` for `column`, TRUE or FALSE for every row. */
  def atMost(c: Column, dataType: DataType, column: LayoutColumn, cut: Double): Column =
    if (cut == Double.PositiveInfinity) lit(true)
    else if (column.kind == ColumnKind.Categorical) c.isNull || categoryAtMost(c, column.categories, cut)
    // NaN (+inf) is above every finite cut, and Spark orders NaN above every number too
    else c.isNull || (numeric(c, dataType) <= lit(cut))

  /** The column as the number the encoding compares (NULL stays NULL). */
  private def numeric(c: Column, dataType: DataType): Column = dataType match {
    case DateType => unix_date(c)
    case TimestampType => unix_micros(c)
    case TimestampNTZType => wallClockMicros(c)
    case _ => c.cast(DoubleType)
  }

  /**
   * A TIMESTAMP_NTZ as microseconds since the wall clock's epoch, from its fields, which Spark
   * reads without a time zone. Never through a cast to TIMESTAMP, which reads the wall clock in
   * the session's time zone (`timestampdiff` casts so too): a wall-clock time that zone skips
   * (02:30 on the day clocks go forward) would move by the gap, so a table created in one zone
   * would route differently in another.
   */
  private def wallClockMicros(c: Column): Column =
    unix_date(to_date(c)).cast(LongType) * 86400000000L + (hour(c) * 3600L + minute(c) * 60L) * 1000000L +
      (date_part(lit("SECOND"), c) * 1000000).cast(LongType)

  /**
   * Ranks are integers and values missing from the dictionary sit half-way between ranks, so the
   * largest encoded value <= cut is a multiple of 0.5 and the test compares with one dictionary value.
   */
  private def categoryAtMost(c: Column, categories: Seq[Any], cut: Double): Column =
    if (cut.isInfinite) lit(cut > 0) // -inf is NULL's encoding: no value is at most it
    else {
      val step = math.floor(cut * 2) / 2
      if (step == math.floor(step)) { // a rank k: at most the k-th value
        val k = step.toLong
        if (k < 0) lit(false) else if (k >= categories.size) lit(true) else c <= lit(categories(k.toInt))
      } else { // k - 0.5: below the k-th value
        val k = math.floor(step).toLong + 1
        if (k < 0) lit(false)
        else if (k == 0) { if (categories.nonEmpty) c < lit(categories.head) else lit(true) }
        else if (k >= categories.size) lit(true) else c < lit(categories(k.toInt))
      }
    }
}
