package io.skipstone.metadata

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile

import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.execution.datasources.{FileFormat, PartitionedFile}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.types.{DataType, StructType}

/**
 * Reads a metadata table straight into driver memory with Spark's own Parquet reader: no
 * Spark job and no DataFrame planning, so the first query after a new version pays a few
 * milliseconds. The table is small (one row per data file) and is wanted on the driver anyway.
 */
object MetadataReader {
  /** The key under which Spark stores a Parquet file's Spark schema in its footer. */
  private val SparkSchemaKey = "org.apache.spark.sql.parquet.row.metadata"

  /** None if the table was not written by Spark (no schema in its footers). */
  def read(session: SparkSession, tableDir: Path): Option[(StructType, Array[InternalRow])] = {
    val conf = session.sessionState.newHadoopConf()
    val files = tableDir.getFileSystem(conf).listStatus(tableDir).filter(_.getPath.getName.endsWith(".parquet"))
    files.headOption.flatMap(f => sparkSchema(f, conf)).map { schema =>
      val reader = new ParquetFileFormat().buildReaderWithPartitionValues(session, schema, new StructType(), schema,
        Nil, Map(FileFormat.OPTION_RETURNING_BATCH -> "false"), conf)
      val toUnsafe = UnsafeProjection.create(schema)
      schema -> files.flatMap { f =>
        val file = PartitionedFile(InternalRow.empty, SparkPath.fromPath(f.getPath), 0L, f.getLen,
          Array.empty[String], f.getModificationTime, f.getLen, Map.empty)
        reader(file).map(row => toUnsafe(row).copy()).toArray
      }
    }
  }

  private def sparkSchema(file: FileStatus, conf: Configuration): Option[StructType] = {
    val reader = ParquetFileReader.open(HadoopInputFile.fromStatus(file, conf))
    try Option(reader.getFooter.getFileMetaData.getKeyValueMetaData.get(SparkSchemaKey)).collect {
      case json => DataType.fromJson(json)
    }.collect { case s: StructType => s }
    finally reader.close()
  }
}
