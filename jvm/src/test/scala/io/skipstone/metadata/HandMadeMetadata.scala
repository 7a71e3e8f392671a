package io.skipstone.metadata

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector
import org.apache.spark.sql.types._

/**
 * A metadata version built in memory, as a build would have published it: base columns
 * (path, size, mtime, num_rows) and then each index's columns, one row per data file.
 * Rows hold Spark's internal values (UTF8String, ArrayData), in the order of [[schema]].
 */
object HandMadeMetadata {
  val Root = "file:/data/events"

  val BaseFields: Seq[StructField] = Seq(
    StructField(LoadedMetadata.Path, StringType), StructField(LoadedMetadata.Size, LongType),
    StructField(LoadedMetadata.ModificationTime, LongType), StructField(LoadedMetadata.NumRows, LongType))

  def schema(indexFields: Seq[StructField]): StructType = StructType(BaseFields ++ indexFields)

  def apply(indexes: Seq[IndexSpec], indexFields: Seq[StructField], rows: Seq[InternalRow],
            context: Option[ReadContext], withheld: Seq[(IndexSpec, String)] = Nil): LoadedMetadata = {
    val s = schema(indexFields)
    val vectors = s.fields.map(f => new OnHeapColumnVector(math.max(rows.size, 1), f.dataType))
    rows.foreach { row =>
      s.fields.indices.foreach(c => ColumnAppender.append(vectors(c), row, c, s(c).dataType))
    }
    val columns = new MetadataColumns(s, vectors, rows.size, s.fieldNames.map(_ -> 0L).toMap)
    new LoadedMetadata(1L, DatasetIndex(DatasetIndex.CurrentFormatVersion, Root, "parquet", indexes, context), columns,
      withheld = withheld)
  }

  /** A Parquet read of `dataSchema` in UTC with no options or settings: what most tests build and query under. */
  def parquetRead(dataSchema: StructType): ReadContext =
    ReadContext("parquet", Map.empty, dataSchema, Nil, "UTC", Map.empty, "4.3")

  def path(file: Int): String = s"$Root/part-$file.parquet"
}
