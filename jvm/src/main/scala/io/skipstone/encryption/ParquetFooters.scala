package io.skipstone.encryption

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.parquet.HadoopReadOptions
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile

/**
 * Opens a Parquet file for its footer as Spark's reader does: with the decryption properties
 * the configuration's crypto factory (`parquet.crypto.factory.class`) gives for that file, so
 * that an encrypted footer is read with the session's keys. `ParquetFileReader.open(InputFile)`
 * alone never decrypts.
 */
object ParquetFooters {
  def open(conf: Configuration, file: FileStatus): ParquetFileReader =
    ParquetFileReader.open(HadoopInputFile.fromStatus(file, conf), HadoopReadOptions.builder(conf, file.getPath).build())

  def open(conf: Configuration, path: Path): ParquetFileReader =
    ParquetFileReader.open(HadoopInputFile.fromPath(path, conf), HadoopReadOptions.builder(conf, path).build())
}
