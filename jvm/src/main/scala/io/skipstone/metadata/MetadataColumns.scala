package io.skipstone.metadata

import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatchRow}

/**
 * A metadata table held on the driver column by column: one Spark on-heap column vector (a
 * primitive array, or offsets into one byte array) per column, one position per file.
 * Clauses are evaluated through [[view]], a row that points at one position at a time.
 *
 * @param columnBytes bytes each column's values occupy, by column name (for the cache's accounting)
 */
final class MetadataColumns(val schema: StructType, vectors: Array[OnHeapColumnVector], val count: Int,
                            val columnBytes: Map[String, Long]) {
  require(vectors.length == schema.length)

  def vector(ordinal: Int): ColumnVector = vectors(ordinal)

  /** A row over every column, positioned with `rowId`; one per thread (it is mutable). */
  def view(): ColumnarBatchRow = new ColumnarBatchRow(vectors.map(v => v: ColumnVector))

  def bytes: Long = columnBytes.values.sum

  def close(): Unit = vectors.foreach(_.close())
}

object MetadataColumns {
  /** No files, only the schema: for versions whose clauses are evaluated with Spark. */
  def empty(schema: StructType): MetadataColumns =
    new MetadataColumns(schema, schema.fields.map(f => new OnHeapColumnVector(1, f.dataType)), 0,
      schema.fieldNames.map(_ -> 0L).toMap)
}
