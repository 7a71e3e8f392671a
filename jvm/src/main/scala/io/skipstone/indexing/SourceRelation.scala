package io.skipstone.indexing

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.classic.{Dataset => ClassicDataset}
import org.apache.spark.sql.execution.datasources.{CatalogFileIndex, HadoopFsRelation, LogicalRelation, PartitioningAwareFileIndex}
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}

import io.skipstone.metadata.{BuildSource, FileIdentity, FilePaths, ReadContext}

/**
 * The file relation a DataFrame reads: what an index over it is built from, so that the
 * metadata means what the DataFrame's reads mean (format, options, schema, root).
 */
case class SourceRelation(relation: HadoopFsRelation, table: Option[CatalogTable]) {
  def context(session: SparkSession): ReadContext = ReadContext.of(relation, session)

  /** The one directory the relation reads, or None when it reads several paths. */
  def root: Option[String] = relation.location.rootPaths match {
    case Seq(one) => Some(FilePaths.root(one.toUri))
    case _ => None
  }

  /**
   * The relation's data files with their identity, as its own file index lists them (the
   * listing the build's scan uses). Local files cost one `stat` each for their fingerprint.
   */
  def files(session: SparkSession): DataFrame = {
    val statuses = relation.location match {
      case c: CatalogFileIndex => c.filterPartitions(Nil).allFiles()
      case p: PartitioningAwareFileIndex => p.allFiles()
      case other => throw new IllegalArgumentException(s"cannot list the files of ${other.getClass.getSimpleName}")
    }
    val rows = statuses.map { s =>
      val id = FileIdentity.of(s)
      Row(FilePaths.canonical(s.getPath.toUri), id.size, id.modificationTime, id.fingerprint.orNull)
    }
    session.createDataFrame(java.util.Arrays.asList(rows: _*), SourceRelation.FilesSchema)
  }
}

object SourceRelation {
  /**
   * What a DataFrame reads (one directory or catalog table of files), as its relation says: the
   * [[BuildSource]] a build records.
   */
  def buildSource(session: SparkSession, df: DataFrame, table: Option[String] = None): BuildSource = {
    val source = of(df)
    val root = source.root.getOrElse(throw new IndexBuildError(
      "the DataFrame reads several paths; Skipstone indexes one directory (or table) per dataset: read its root directory"))
    BuildSource(root, source.context(session).format, source.relation.options,
      table.orElse(source.table.map(_.identifier.unquotedString)), Some(df.schema))
  }

  val FilesSchema: StructType = StructType(Seq(StructField("path", StringType), StructField("size", LongType),
    StructField("mtime", LongType), StructField("fingerprint", StringType)))

  def of(df: DataFrame): SourceRelation = {
    val plan = df.asInstanceOf[ClassicDataset[_]].queryExecution.analyzed
    plan.collect { case LogicalRelation(fs: HadoopFsRelation, _, table, _, _) => SourceRelation(fs, table) } match {
      case Seq(one) => one
      case Seq() => throw new IllegalArgumentException(
        "the DataFrame does not read files through a file source (Parquet, ORC, CSV, JSON, ...); " +
          "Skipstone indexes file-based datasets and tables")
      case several => throw new IllegalArgumentException(
        s"the DataFrame reads ${several.size} file relations; index each dataset on its own")
    }
  }
}
