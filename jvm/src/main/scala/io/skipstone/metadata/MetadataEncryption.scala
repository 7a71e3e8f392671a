package io.skipstone.metadata

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.parquet.SparkToParquetSchemaConverter
import org.apache.spark.sql.types.StructType

import io.skipstone.encryption.EncryptionConf

/**
 * How a version's metadata table is encrypted, from its definition: each encrypted index's
 * columns under the index's key, everything else (and the footer) under the dataset's footer
 * key; a definition without a footer key is written in plaintext (docs/encryption.md).
 */
object MetadataEncryption {
  /** The Parquet writer options of a table of `schema` for the version `definition` defines. */
  def writerOptions(session: SparkSession, definition: DatasetIndex, schema: StructType): Map[String, String] = {
    // Parquet encrypts leaf columns: an index's array of values is `<column>.list.element`, as
    // Spark's writer lays it out under this session's settings.
    val leaves = new SparkToParquetSchemaConverter(session.sessionState.conf).convert(schema).getPaths.asScala
      .map(_.toSeq).groupBy(_.head)
    val columnsByKey = definition.indexes.filter(_.key.isDefined).groupBy(_.key.get).toSeq.sortBy(_._1).map { case (key, ixs) =>
      key -> ixs.flatMap(_.metadataColumns.values).flatMap(c => leaves.getOrElse(c, Nil)).map(_.mkString("."))
    }
    EncryptionConf.writerOptions(session.sessionState.newHadoopConf(), columnsByKey, definition.footerKey)
  }
}
