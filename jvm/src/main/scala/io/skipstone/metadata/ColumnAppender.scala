package io.skipstone.metadata

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.execution.vectorized.WritableColumnVector
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatchRow}
import org.apache.spark.unsafe.Platform

/**
 * Appends one cell of a row (or array, or struct) to a column vector of the same type, so a
 * metadata table read row by row or batch by batch ends in one primitive array per column.
 * Returns the bytes the cell's value occupies, for the cache's accounting.
 */
object ColumnAppender {
  /**
   * Appends a whole batch column: 64-bit and 32-bit columns without NULLs in one array copy
   * (a million files' sizes, times and min/max values on a cold load), anything else cell by cell.
   */
  def appendColumn(to: WritableColumnVector, from: ColumnVector, rows: Int, dataType: DataType): Long =
    dataType match {
      case LongType | TimestampType | TimestampNTZType if !from.hasNull =>
        to.appendLongs(rows, from.getLongs(0, rows), 0); 8L * rows
      case IntegerType | DateType if !from.hasNull =>
        to.appendInts(rows, from.getInts(0, rows), 0); 4L * rows
      case _ =>
        val row = new ColumnarBatchRow(Array(from))
        var bytes, i = 0L
        while (i < rows) {
          row.rowId = i.toInt
          bytes += append(to, row, 0, dataType)
          i += 1
        }
        bytes
    }

  def append(to: WritableColumnVector, from: SpecializedGetters, ordinal: Int, dataType: DataType): Long =
    if (from.isNullAt(ordinal)) {
      dataType match {
        case _: StructType => to.appendStruct(true)
        case _ => to.appendNull()
      }
      0L
    } else dataType match {
      case BooleanType => to.appendBoolean(from.getBoolean(ordinal)); 1L
      case ByteType => to.appendByte(from.getByte(ordinal)); 1L
      case ShortType => to.appendShort(from.getShort(ordinal)); 2L
      case IntegerType | DateType | _: YearMonthIntervalType => to.appendInt(from.getInt(ordinal)); 4L
      case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType => to.appendLong(from.getLong(ordinal)); 8L
      case FloatType => to.appendFloat(from.getFloat(ordinal)); 4L
      case DoubleType => to.appendDouble(from.getDouble(ordinal)); 8L
      case _: StringType =>
        val s = from.getUTF8String(ordinal)
        s.getBaseObject match {
          // Straight from the reader's buffer: no copy per cell (a million paths on a cold load).
          case buffer: Array[Byte] => to.appendByteArray(buffer, (s.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt, s.numBytes)
          case _ => val bytes = s.getBytes; to.appendByteArray(bytes, 0, bytes.length)
        }
        s.numBytes + 8L
      case BinaryType =>
        val bytes = from.getBinary(ordinal)
        to.appendByteArray(bytes, 0, bytes.length)
        bytes.length + 8L
      case d: DecimalType =>
        val i = to.appendNotNull()
        to.putDecimal(i, from.getDecimal(ordinal, d.precision, d.scale), d.precision)
        if (d.precision <= Decimal.MAX_LONG_DIGITS) 8L else 16L
      case ArrayType(element, _) =>
        val array = from.getArray(ordinal)
        to.appendArray(array.numElements())
        (0 until array.numElements()).map(i => append(to.arrayData(), array, i, element)).sum + 8L
      case MapType(keyType, valueType, _) =>
        val map = from.getMap(ordinal)
        to.appendArray(map.numElements())
        val (keys, values) = (map.keyArray(), map.valueArray())
        (0 until map.numElements()).map { i =>
          append(to.getChild(0), keys, i, keyType) + append(to.getChild(1), values, i, valueType)
        }.sum + 8L
      case s: StructType =>
        to.appendStruct(false)
        val struct = from.getStruct(ordinal, s.length)
        s.fields.indices.map(i => append(to.getChild(i), struct, i, s(i).dataType)).sum
      case other =>
        throw new IllegalStateException(s"a metadata column of type ${other.simpleString} cannot be held on the driver")
    }
}
