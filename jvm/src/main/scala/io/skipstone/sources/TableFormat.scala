package io.skipstone.sources

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.datasources.{FileIndex, HadoopFsRelation}

import io.skipstone.metadata.ReadContext

/**
 * A table format whose own metadata lists the live data files of a snapshot (Delta Lake's log,
 * Iceberg's manifests), where a directory's listing would also show files the table removed.
 * Both formats promise what Skipstone's freshness rests on:
 *
 *  - a data file is written once under a new name and never changed, so a listed file with an
 *    indexed path and size is the file that was indexed (no modification time, no file-system call);
 *  - a delete only hides rows of a file (Delta's deletion vectors, Iceberg's position and
 *    equality delete files), so an index over a file's full contents holds for every snapshot
 *    that lists the file, older ones included;
 *  - a snapshot is named by a number (Delta's version, Iceberg's snapshot id) that a build records.
 */
trait TableFormat {
  /** The format a build records (`delta`, `iceberg`). */
  def name: String

  /** The format's name in messages ("Delta Lake"). */
  def title: String

  /** The format's word for the number that names a snapshot ("version"). */
  def snapshotWord: String

  /** Whether `index` lists a snapshot of a table of this format. */
  def lists(index: FileIndex): Boolean

  /** The snapshot `index` lists, if the format says. */
  def snapshotOf(index: FileIndex): Option[Long]

  /** Whether the directory `root` holds a table of this format (its metadata directory). */
  def isTableRoot(conf: Configuration, root: String): Boolean

  /**
   * Every row `files` (canonical paths) of the table `relation` reads hold, rows hidden by
   * deletes included: what an index over a file's full contents summarizes.
   */
  def fullContents(session: SparkSession, relation: HadoopFsRelation, files: Seq[String]): DataFrame

  /** How a build over `relation` reads the files, for the read context its metadata records. */
  def reading(relation: HadoopFsRelation): ReadContext.Reading = ReadContext.Reading.of(relation)
}

object TableFormats {
  val all: Seq[TableFormat] = Seq(DeltaTables, IcebergTables)

  /** The format whose snapshot `index` lists, if any. */
  def of(index: FileIndex): Option[TableFormat] = all.find(_.lists(index))

  def named(format: String): Option[TableFormat] = all.find(_.name.equalsIgnoreCase(format))

  /** The format of the table under `root`, if one of these formats keeps its metadata there. */
  def at(conf: Configuration, root: String): Option[TableFormat] = all.find(_.isTableRoot(conf, root))
}
