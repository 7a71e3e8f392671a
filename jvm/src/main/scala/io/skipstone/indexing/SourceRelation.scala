package io.skipstone.indexing

import org.apache.hadoop.fs.FileStatus

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.classic.{Dataset => ClassicDataset}
import org.apache.spark.sql.execution.datasources.{CatalogFileIndex, HadoopFsRelation, LogicalRelation, PartitioningAwareFileIndex}
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}

import io.skipstone.metadata.{BuildSource, FileIdentity, FilePaths, ReadContext}
import io.skipstone.sources.{IcebergFiles, IcebergTables, TableFormat, TableFormats}

/**
 * The file relation a DataFrame reads: what an index over it is built from, so that the
 * metadata means what the DataFrame's reads mean (format, options, schema, root).
 */
case class SourceRelation(relation: HadoopFsRelation, table: Option[CatalogTable]) {
  def context(session: SparkSession): ReadContext =
    ReadContext.of(tableFormat.fold(ReadContext.Reading.of(relation))(_.reading(relation)), session)

  /** The one directory the relation reads, or None when it reads several paths. */
  def root: Option[String] = relation.location.rootPaths match {
    case Seq(one) => Some(FilePaths.root(one.toUri))
    case _ => None
  }

  /**
   * The table format (Delta Lake, Iceberg) whose snapshot the relation lists, if any: its files
   * are those the table's metadata lists, not a directory's.
   */
  val tableFormat: Option[TableFormat] = TableFormats.of(relation.location)

  /** The format a build records and a refresh reads with: the table format, else the reader's. */
  def format(session: SparkSession): String = tableFormat.fold(context(session).format)(_.name)

  /** The snapshot the relation lists, for a table format (Delta's version, Iceberg's snapshot id). */
  def tableVersion: Option[Long] = tableFormat.flatMap(_.snapshotOf(relation.location))

  /** The catalog table read, by the name that reads it again. */
  def tableName: Option[String] = table.map(_.identifier.unquotedString).orElse(relation.location match {
    case iceberg: IcebergFiles => iceberg.snapshot.catalogName
    case _ => None
  })

  /**
   * The reader options a refresh reads the dataset with: the relation's, but none for an Iceberg
   * table, read by its name or path (the relation's are how Skipstone reads its files).
   */
  def readerOptions: Map[String, String] = if (tableFormat.contains(IcebergTables)) Map.empty else relation.options

  /**
   * The relation's data files with their identity, as its own file index lists them (the
   * listing the build's scan uses). Local files cost one `stat` each for their fingerprint.
   * A table format's are its snapshot's live files with the size (and time) its metadata
   * records: files are never rewritten in place, so path and size identify one (no fingerprint).
   */
  def files(session: SparkSession): DataFrame = {
    val rows = if (tableFormat.isDefined) {
      liveFiles.map(s => Row(FilePaths.canonical(s.getPath.toUri), s.getLen, s.getModificationTime, null))
    } else {
      listed.map { s =>
        val id = FileIdentity.of(s)
        Row(FilePaths.canonical(s.getPath.toUri), id.size, id.modificationTime, id.fingerprint.orNull)
      }
    }
    session.createDataFrame(java.util.Arrays.asList(rows: _*), SourceRelation.FilesSchema)
  }

  /** A data file of a relation that is not a table format's, to learn from its footer how files are written. */
  def someFile: Option[FileStatus] = if (tableFormat.isDefined) None else listed.headOption

  private def listed: Seq[FileStatus] = relation.location match {
    case c: CatalogFileIndex => c.filterPartitions(Nil).allFiles().toSeq
    case p: PartitioningAwareFileIndex => p.allFiles().toSeq
    case other => throw new IllegalArgumentException(s"cannot list the files of ${other.getClass.getSimpleName}")
  }

  /** A table format's live files, as a read of the whole table lists them. */
  private def liveFiles = relation.location.listFiles(Nil, Nil).flatMap(_.files).map(_.fileStatus)

  /**
   * The rows a build summarizes per file of `df` (this relation's DataFrame): `df` itself, but
   * for a table format every row its live files hold (see [[tableFileRows]]).
   */
  def rowsToIndex(session: SparkSession, df: DataFrame): DataFrame =
    if (tableFormat.isEmpty) df else tableFileRows(session, df, liveFiles.map(s => FilePaths.canonical(s.getPath.toUri)))

  /**
   * Every row `files` (canonical paths) of this table hold, rows hidden by deletes included (see
   * [[TableFormat.fullContents]]); `df` is the table's DataFrame, whose empty form stands for no files.
   */
  def tableFileRows(session: SparkSession, df: DataFrame, files: Seq[String]): DataFrame = {
    val format = tableFormat.getOrElse(throw new IllegalArgumentException(s"${root.getOrElse("the dataset")} is no table format's"))
    if (files.isEmpty) df.limit(0) else format.fullContents(session, relation, files)
  }
}

object SourceRelation {
  /**
   * What a DataFrame reads (one directory or catalog table of files), as its relation says: the
   * [[BuildSource]] a build records.
   */
  def buildSource(session: SparkSession, df: DataFrame, table: Option[String] = None): BuildSource = {
    val source = of(session, df)
    val root = source.root.getOrElse(throw new IndexBuildError(
      "the DataFrame reads several paths; Skipstone indexes one directory (or table) per dataset: read its root directory"))
    BuildSource(root, source.format(session), source.readerOptions, table.orElse(source.tableName),
      Some(source.relation.schema), source.tableVersion)
  }

  val FilesSchema: StructType = StructType(Seq(StructField("path", StringType), StructField("size", LongType),
    StructField("mtime", LongType), StructField("fingerprint", StringType)))

  /** The one file relation `df` reads, if it reads exactly one (a managed table's schema-only frame reads none). */
  def find(df: DataFrame): Option[SourceRelation] = relations(df) match {
    case Seq(one) => Some(one)
    case _ => None
  }

  private def relations(df: DataFrame): Seq[SourceRelation] =
    df.asInstanceOf[ClassicDataset[_]].queryExecution.analyzed
      .collect { case LogicalRelation(fs: HadoopFsRelation, _, table, _, _) => SourceRelation(fs, table) }

  /**
   * The file relation `df` reads as a build reads it: `df`'s own, or for an Iceberg table (which
   * Spark reads through Iceberg's connector, not as files) the data files of the snapshot it reads.
   */
  def of(session: SparkSession, df: DataFrame): SourceRelation = of(IcebergTables.pinned(session, df).getOrElse(df))

  def of(df: DataFrame): SourceRelation = {
    relations(df) match {
      case Seq(one) => one
      case Seq() => throw new IllegalArgumentException(
        "the DataFrame does not read files through a file source (Parquet, ORC, CSV, JSON, ...) nor an Iceberg table; " +
          "Skipstone indexes file-based datasets and tables")
      case several => throw new IllegalArgumentException(
        s"the DataFrame reads ${several.size} file relations; index each dataset on its own")
    }
  }
}
