package io.skipstone.metadata

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.parquet.hadoop.metadata.ParquetMetadata

import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{FileFormat, PartitionedFile}
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFileFormat, ParquetUtils}
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector
import org.apache.spark.sql.types.{BinaryType, DataType, StringType, StructType}
import org.apache.spark.sql.vectorized.ColumnarBatch

import io.skipstone.encryption.ParquetFooters

/**
 * Reads a metadata table straight into driver memory with Spark's own (vectorized) Parquet
 * reader: no Spark job and no DataFrame planning. Footers first give the number of files and
 * the size of string columns, so every column is allocated once at its final size; batches are
 * then copied column by column into [[MetadataColumns]].
 */
object MetadataReader {
  /** The key under which Spark stores a Parquet file's Spark schema in its footer. */
  private val SparkSchemaKey = "org.apache.spark.sql.parquet.row.metadata"

  /** What the footers tell without reading any data: for choosing where to evaluate. */
  case class Footprint(schema: StructType, files: Seq[FileStatus], rows: Long, uncompressedBytes: Long)

  /** None if the table was not written by Spark (no schema in its footers). */
  def footprint(session: SparkSession, tableDir: Path): Option[Footprint] = {
    val conf = session.sessionState.newHadoopConf()
    val files = tableDir.getFileSystem(conf).listStatus(tableDir).filter(_.getPath.getName.endsWith(".parquet")).toSeq
    val footers = files.map(f => footer(f, conf))
    footers.headOption.flatMap(sparkSchema).map { schema =>
      val blocks = footers.flatMap(_.getBlocks.asScala)
      Footprint(schema, files, blocks.map(_.getRowCount).sum, blocks.map(_.getTotalByteSize).sum)
    }
  }

  def read(session: SparkSession, tableDir: Path): Option[MetadataColumns] =
    footprint(session, tableDir).map(read(session, _))

  def read(session: SparkSession, table: Footprint): MetadataColumns = {
    val conf = session.sessionState.newHadoopConf()
    val schema = table.schema
    if (table.rows > Int.MaxValue) throw new IllegalStateException(s"${table.rows} files are too many for one driver")
    val count = table.rows.toInt
    val vectors = schema.fields.map(f => new OnHeapColumnVector(math.max(count, 1), f.dataType))
    val bytes = Array.fill(schema.length)(count.toLong) // a null flag per file and column
    val batched = ParquetUtils.isBatchReadSupportedForSchema(session.sessionState.conf, schema)
    val reader = new ParquetFileFormat().buildReaderWithPartitionValues(session, schema, new StructType(), schema,
      Nil, Map(FileFormat.OPTION_RETURNING_BATCH -> batched.toString), conf)
    def copy(row: InternalRow): Unit = {
      var c = 0
      while (c < vectors.length) {
        bytes(c) += ColumnAppender.append(vectors(c), row, c, schema(c).dataType)
        c += 1
      }
    }
    table.files.foreach { f =>
      val file = PartitionedFile(InternalRow.empty, SparkPath.fromPath(f.getPath), 0L, f.getLen,
        Array.empty[String], f.getModificationTime, f.getLen, Map.empty)
      // The vectorized reader hands out batches (typed as rows); the row-based one, rows.
      reader(file).asInstanceOf[Iterator[Any]].foreach {
        case batch: ColumnarBatch =>
          var c = 0
          while (c < vectors.length) {
            bytes(c) += ColumnAppender.appendColumn(vectors(c), batch.column(c), batch.numRows, schema(c).dataType)
            c += 1
          }
        case row: InternalRow => copy(row)
      }
    }
    val appended = vectors.headOption.map(_.getElementsAppended).getOrElse(0)
    if (appended != count) throw new IllegalStateException(s"footers count $count files, the table holds $appended")
    new MetadataColumns(schema, vectors, count, schema.fieldNames.zip(bytes).toMap)
  }

  private def footer(file: FileStatus, conf: Configuration): ParquetMetadata = {
    val reader = ParquetFooters.open(conf, file)
    try reader.getFooter finally reader.close()
  }

  private def sparkSchema(footer: ParquetMetadata): Option[StructType] =
    Option(footer.getFileMetaData.getKeyValueMetaData.get(SparkSchemaKey)).map(DataType.fromJson).collect {
      case s: StructType => s
    }
}
