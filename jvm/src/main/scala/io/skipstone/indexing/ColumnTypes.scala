package io.skipstone.indexing

import org.apache.spark.sql.catalyst.util.CollationFactory
import org.apache.spark.sql.types._

/** Which column types an index kind accepts, checked before any data is read. */
object ColumnTypes {
  sealed trait Family
  case object Integral extends Family
  case object Floating extends Family
  case object Decimal extends Family
  case object Temporal extends Family
  case object Text extends Family
  case object Bool extends Family
  case object Bytes extends Family

  val Numeric: Set[Family] = Set(Integral, Floating, Decimal)
  /** Types with a distance between values: what a gap between two of them can be measured in. */
  val OrderedRange: Set[Family] = Numeric + Temporal
  /** Types whose values can be listed distinctly and hashed consistently. */
  val Hashable: Set[Family] = OrderedRange ++ Set(Text, Bool, Bytes)
  val Ordered: Set[Family] = OrderedRange ++ Set(Text, Bool)
  val Strings: Set[Family] = Set(Text)

  /** The family of a type, None for types no kind indexes (structs, arrays, collated strings, CHAR). */
  def family(t: DataType): Option[Family] = t match {
    case ByteType | ShortType | IntegerType | LongType => Some(Integral)
    case FloatType | DoubleType => Some(Floating)
    case _: DecimalType => Some(Decimal)
    case DateType | TimestampType | TimestampNTZType => Some(Temporal)
    // CHAR/VARCHAR pad and compare differently; collated strings order differently from their bytes.
    case _: CharType | _: VarcharType => None
    case s: StringType if s.collationId == CollationFactory.UTF8_BINARY_COLLATION_ID => Some(Text)
    case BooleanType => Some(Bool)
    case BinaryType => Some(Bytes)
    case _ => None
  }

  /** Raise an error naming the kind, column and dataset unless `column`'s type is allowed. */
  def require(kind: String, column: ResolvedColumn, allowed: Set[Family], described: String, dataset: String): Unit =
    if (!family(column.dataType).exists(allowed)) throw new IndexBuildError(
      s"$kind cannot index column '${column.name}' of dataset $dataset: its type " +
        s"${column.dataType.simpleString} is not $described")
}
