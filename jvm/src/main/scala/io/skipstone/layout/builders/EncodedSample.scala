package io.skipstone.layout.builders

import java.nio.{ByteBuffer, ByteOrder}

import org.json4s.jackson.JsonMethods

import io.skipstone.layout.{LayoutColumn, LayoutDocument}

/**
 * A sample of a table's rows in the layout encoding (Python's `LayoutData`): per layout column
 * (column-major) one double per sampled row; numbers as they are, dates as days, timestamps as
 * microseconds, strings and booleans as their rank in the column's dictionary (its
 * `categories`), NULL -inf and NaN +inf. The builders read it and never change it (its arrays
 * are shared, and compared by reference: equal samples are not `==`).
 */
final case class EncodedSample(schema: Seq[LayoutColumn], columns: Array[Array[Double]]) {
  require(columns.length == schema.size, s"a sample of ${schema.size} layout columns holds ${columns.length} value columns")
  require(columns.map(_.length).distinct.size <= 1,
    s"the sample's columns have different lengths: ${schema.map(_.name).zip(columns.map(_.length)).mkString(", ")}")

  def rows: Int = columns.headOption.fold(0)(_.length)
  def width: Int = schema.size

  /** The position of a layout column, or an error naming it and the sample's columns. */
  def index(name: String): Int = {
    val i = schema.indexWhere(_.name == name)
    if (i < 0) throw new IllegalArgumentException(
      s"unknown layout column '$name'; known: ${schema.map(_.name).mkString(", ")}")
    i
  }

  /** The values of one column at the given sample rows. */
  def values(column: Int, rows: Array[Int]): Array[Double] = {
    val all = columns(column)
    rows.map(all(_))
  }

  /** The schema as a layout document's `schema` array (so that Python reads it with `Schema.from_json`). */
  def schemaJson: String = JsonMethods.compact(JsonMethods.render(LayoutDocument.schemaJson(schema)))

  /** Every value as little-endian doubles, column after column: how the sample crosses to Python. */
  def valueBytes: Array[Byte] = {
    val buffer = ByteBuffer.allocate(8 * rows * width).order(ByteOrder.LITTLE_ENDIAN)
    columns.foreach(_.foreach(buffer.putDouble))
    buffer.array()
  }
}

object EncodedSample {

  /** The sample `schemaJson` and `valueBytes` describe. */
  def fromBytes(schemaJson: String, rows: Int, values: Array[Byte]): EncodedSample = {
    val schema = LayoutDocument.readSchema(JsonMethods.parse(schemaJson))
    require(values.length == 8L * rows * schema.size,
      s"a sample of $rows rows and ${schema.size} columns takes ${8L * rows * schema.size} bytes, got ${values.length}")
    val buffer = ByteBuffer.wrap(values).order(ByteOrder.LITTLE_ENDIAN)
    EncodedSample(schema, Array.fill(schema.size)(Array.fill(rows)(buffer.getDouble)))
  }
}
