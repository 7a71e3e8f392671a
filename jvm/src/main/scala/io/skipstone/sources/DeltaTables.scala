package io.skipstone.sources

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.datasources.{FileIndex, HadoopFsRelation}
import org.apache.spark.sql.types.StructType

import io.skipstone.metadata.BuildSource

/**
 * What Skipstone needs of a Delta Lake table, without Delta on its class path: Skipstone is
 * compiled against Spark alone and `pip install skipstone` brings no Delta, so Delta's file
 * indexes are recognised by class name and asked for their version by reflection. Anything
 * else goes through Spark's own `FileIndex` API. Every answer may be "unknown" (None, false):
 * a Delta release that renamed something then costs skipping, never a query.
 *
 * Facts about Delta this relies on (its PROTOCOL.md): data files are immutable and named once,
 * a snapshot's live files are its `add` actions, and a file's path and size identify it.
 */
object DeltaTables extends TableFormat {
  val Format: String = BuildSource.DeltaFormat

  override def name: String = Format
  override def title: String = "Delta Lake"
  override def snapshotWord: String = "version"

  /** Every Delta file index (a table's, a DML command's, a change feed's) extends this. */
  private val AnyIndex = "org.apache.spark.sql.delta.files.TahoeFileIndex"
  /** A query's read of a table: before Delta's PrepareDeltaScan, and after it (pinned, stats-skipped). */
  private val LogIndex = "org.apache.spark.sql.delta.files.TahoeLogFileIndex"
  private val PreparedIndex = "org.apache.spark.sql.delta.stats.PreparedDeltaFileIndex"
  /** Column mapping stores a column under a physical name in the files (and its metadata says which). */
  private val PhysicalNameKey = "delta.columnMapping.physicalName"

  def isDeltaIndex(index: FileIndex): Boolean =
    Iterator.iterate[Class[_]](index.getClass)(_.getSuperclass).takeWhile(_ != null).exists(_.getName == AnyIndex)

  override def lists(index: FileIndex): Boolean = isDeltaIndex(index)
  override def snapshotOf(index: FileIndex): Option[Long] = version(index)

  /**
   * Whether `index` lists a table's snapshot for a query: the only Delta indexes whose listing
   * Skipstone narrows. DML commands list chosen files (`TahoeBatchFileIndex`) and change feeds
   * list removed files too; those are Delta's business and left alone.
   */
  def readsSnapshot(index: FileIndex): Boolean = {
    val name = index.getClass.getName
    name == LogIndex || name == PreparedIndex
  }

  /** The table version `index` lists (for an unpinned index, the newest this JVM knows), if Delta says. */
  def version(index: FileIndex): Option[Long] =
    Try(index.getClass.getMethod("version").invoke(index).asInstanceOf[Long]).toOption

  /** Whether the index was resolved at a chosen version (`versionAsOf`, `timestampAsOf`). */
  private def isTimeTravel(index: FileIndex): Boolean =
    Try(index.getClass.getMethod("isTimeTravelQuery").invoke(index).asInstanceOf[Boolean]).getOrElse(false)

  /** Whether `root` holds a Delta table: Delta's log is `_delta_log` under the table's root. */
  override def isTableRoot(conf: Configuration, root: String): Boolean =
    Try { val log = new Path(root, "_delta_log"); log.getFileSystem(conf).exists(log) }.getOrElse(false)

  /**
   * `df` read at one fixed version: the version its index resolved if it time travels, else the
   * newest one the index knows, read again by `versionAsOf`, so that the files a build lists,
   * the rows it reads and the version it records are of one snapshot even while writers commit.
   */
  def pinned(session: SparkSession, df: DataFrame, relation: HadoopFsRelation, root: String): DataFrame =
    if (isTimeTravel(relation.location)) df
    else version(relation.location) match {
      case Some(v) => session.read.format(Format).option("versionAsOf", v.toString).load(root)
      case None => throw new IllegalStateException(
        s"cannot tell which version of the Delta table $root is read: this Delta release's file index " +
          s"(${relation.location.getClass.getName}) has no version(); Skipstone knows Delta 4.x")
    }

  /**
   * The snapshot's live data files, as Delta lists them for a scan of the whole table: its `add`
   * actions (a file removed but not yet vacuumed is not among them), with the size and
   * modification time the log records.
   */
  def liveFiles(relation: HadoopFsRelation): Seq[FileStatus] =
    relation.location.listFiles(Nil, Nil).flatMap(_.files).map(_.fileStatus)

  /** The columns stored in the data files: Delta keeps partition values in the log, not in files. */
  def fileSchema(relation: HadoopFsRelation): StructType = {
    val partitions = relation.partitionSchema.fieldNames.toSet
    StructType(relation.dataSchema.filterNot(f => partitions(f.name)))
  }

  /** Columns the table stores under another (physical) name; empty without column mapping. */
  def mappedColumns(relation: HadoopFsRelation): Seq[String] =
    relation.dataSchema.filter(_.metadata.contains(PhysicalNameKey)).map(_.name).toSeq

  /**
   * Every row `files` hold, deletion vectors ignored: the files read as the Parquet files they
   * are, with the table's file columns. An index over a file's full contents stays true of every
   * snapshot that lists the file: a deletion vector only hides rows (Delta never adds rows to a
   * file), so what the index says may be in the file is a superset of what any version shows.
   */
  override def fullContents(session: SparkSession, relation: HadoopFsRelation, files: Seq[String]): DataFrame =
    session.read.schema(fileSchema(relation)).parquet(files: _*)
}
