package io.skipstone.sources

import org.apache.hadoop.fs.{FileStatus, Path}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.datasources.{FileIndex, FileStatusWithMetadata, PartitionDirectory}
import org.apache.spark.sql.types.StructType

import io.skipstone.metadata.FilePaths

/**
 * One snapshot of an Iceberg table as a read plans it.
 *
 * @param table      the table's name in messages (Iceberg's)
 * @param root       the table's location, qualified: the key of its Skipstone metadata
 * @param snapshotId the snapshot read; None for a table that has none yet
 * @param schema     the snapshot's columns as Spark types, each struct field with its Iceberg
 *                   field id (`parquet.field.id`), by which Iceberg's Parquet files name columns
 * @param defaulted  top-level columns (or columns with a nested field) that have an initial
 *                   default (Iceberg v3): files written before the field existed read as the
 *                   default, not as NULL
 * @param catalogName the name that reads the table from Spark's catalogs, for a build to read it
 *                   again; None for a table read by its path
 */
final case class IcebergSnapshot(table: String, root: String, snapshotId: Option[Long], schema: StructType,
                                 defaulted: Set[String], catalogName: Option[String] = None)

/**
 * The live data files of one Iceberg snapshot as a file index: what a build reads (each file's
 * full contents, see [[IcebergTables.fileRows]]) and what a query's skipping narrows. Files are
 * identified by path and size, as Iceberg's manifests record them; Iceberg records no
 * modification time, so it is 0 here and in the metadata built from this listing.
 */
final class IcebergFiles(val snapshot: IcebergSnapshot, val files: Seq[FileStatus]) extends FileIndex {
  override def rootPaths: Seq[Path] = Seq(new Path(snapshot.root))

  override def listFiles(partitionFilters: Seq[Expression], dataFilters: Seq[Expression]): Seq[PartitionDirectory] =
    Seq(PartitionDirectory(InternalRow.empty, files.map(FileStatusWithMetadata(_))))

  override def inputFiles: Array[String] = files.map(_.getPath.toString).toArray
  override def refresh(): Unit = ()
  override def sizeInBytes: Long = files.map(_.getLen).sum
  override def partitionSchema: StructType = new StructType()

  /** The same snapshot, listing only `paths` (canonical spellings) of its files. */
  def only(paths: Seq[String]): IcebergFiles = {
    val wanted = paths.toSet
    new IcebergFiles(snapshot, files.filter(f => wanted(FilePaths.canonical(f.getPath.toUri))))
  }

  override def toString: String =
    s"IcebergFiles[${snapshot.table}, snapshot ${snapshot.snapshotId.getOrElse("none")}, ${files.size} files]"
}

object IcebergFiles {
  /** A data file as Iceberg records it: its location (qualified by the caller) and size. */
  def status(path: Path, size: Long): FileStatus = new FileStatus(size, false, 1, 0L, 0L, path)
}
