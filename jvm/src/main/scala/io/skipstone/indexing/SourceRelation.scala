package io.skipstone.indexing

import org.apache.hadoop.fs.FileStatus

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.classic.{Dataset => ClassicDataset}
import org.apache.spark.sql.execution.datasources.{CatalogFileIndex, HadoopFsRelation, LogicalRelation, PartitioningAwareFileIndex}
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}

import io.skipstone.metadata.{BuildSource, FileIdentity, FilePaths, ReadContext}
import io.skipstone.sources.DeltaTables

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

  /** Whether the relation reads a Delta Lake table (its files are the snapshot's, not a directory's). */
  def isDelta: Boolean = DeltaTables.isDeltaIndex(relation.location)

  /** The format a build records and a refresh reads with: `delta` for a Delta table, else the reader's. */
  def format(session: SparkSession): String = if (isDelta) DeltaTables.Format else context(session).format

  /** The Delta table version the relation lists, for a Delta table. */
  def tableVersion: Option[Long] = if (isDelta) DeltaTables.version(relation.location) else None

  /**
   * The relation's data files with their identity, as its own file index lists them (the
   * listing the build's scan uses). Local files cost one `stat` each for their fingerprint.
   * A Delta table's are its snapshot's live files with the size and time its log records:
   * Delta never rewrites a file in place, so path and size identify one (no fingerprint).
   */
  def files(session: SparkSession): DataFrame = {
    val rows = if (isDelta) {
      DeltaTables.liveFiles(relation).map(s => Row(FilePaths.canonical(s.getPath.toUri), s.getLen, s.getModificationTime, null))
    } else {
      listed.map { s =>
        val id = FileIdentity.of(s)
        Row(FilePaths.canonical(s.getPath.toUri), id.size, id.modificationTime, id.fingerprint.orNull)
      }
    }
    session.createDataFrame(java.util.Arrays.asList(rows: _*), SourceRelation.FilesSchema)
  }

  /** A data file of a relation that is not a Delta table, to learn from its footer how files are written. */
  def someFile: Option[FileStatus] = if (isDelta) None else listed.headOption

  private def listed: Seq[FileStatus] = relation.location match {
    case c: CatalogFileIndex => c.filterPartitions(Nil).allFiles().toSeq
    case p: PartitioningAwareFileIndex => p.allFiles().toSeq
    case other => throw new IllegalArgumentException(s"cannot list the files of ${other.getClass.getSimpleName}")
  }

  /**
   * The rows a build summarizes per file of `df` (this relation's DataFrame): `df` itself, but
   * for a Delta table every row its live files hold (see [[deltaFileRows]]).
   */
  def rowsToIndex(session: SparkSession, df: DataFrame): DataFrame =
    if (!isDelta) df else deltaFileRows(session, df, DeltaTables.liveFiles(relation).map(_.getPath.toString))

  /**
   * Every row `files` of this Delta table hold, rows hidden by deletion vectors included (see
   * [[DeltaTables.fullContents]]); `df` is the table's DataFrame, whose empty form stands for no files.
   */
  def deltaFileRows(session: SparkSession, df: DataFrame, files: Seq[String]): DataFrame =
    if (files.isEmpty) df.limit(0) else DeltaTables.fullContents(session, relation, files)
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
    BuildSource(root, source.format(session), source.relation.options,
      table.orElse(source.table.map(_.identifier.unquotedString)), Some(df.schema), source.tableVersion)
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

  def of(df: DataFrame): SourceRelation = {
    relations(df) match {
      case Seq(one) => one
      case Seq() => throw new IllegalArgumentException(
        "the DataFrame does not read files through a file source (Parquet, ORC, CSV, JSON, ...); " +
          "Skipstone indexes file-based datasets and tables")
      case several => throw new IllegalArgumentException(
        s"the DataFrame reads ${several.size} file relations; index each dataset on its own")
    }
  }
}
