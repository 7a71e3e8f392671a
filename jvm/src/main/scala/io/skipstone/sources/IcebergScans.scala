package io.skipstone.sources

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.connector.read.Scan

/**
 * Iceberg's Spark scans, by class name and reflection (Iceberg is not on Skipstone's class
 * path). A query's read of an Iceberg table is a `SparkBatchQueryScan`: Iceberg plans its
 * tasks, one per live data file of the snapshot it pins, with the delete files that apply to
 * it, and groups them into Spark partitions only when Spark asks for its batch. Skipstone
 * narrows a scan as Iceberg's own runtime filtering does (`SparkRuntimeFilterableScan.filter`):
 * by resetting the scan's tasks to those it keeps, so the snapshot, the delete files, the
 * schema and the splitting stay Iceberg's.
 *
 * Reflection reaches what Iceberg keeps protected or package-private: `tasks()`,
 * `resetTasks(List)`, `specs()`, `table()`, `schema()`, `snapshotId()`. A release that renamed
 * one throws here, and the caller reads every file.
 */
object IcebergScans {
  private val QueryScan = "org.apache.iceberg.spark.source.SparkBatchQueryScan"
  /** A table read by a query; a row-level operation (DELETE, UPDATE, MERGE) reads another class of table. */
  private val QueryTable = "org.apache.iceberg.spark.source.SparkTable"

  /** A data file as a task reads it: its location as Iceberg spells it, its size and file format. */
  final case class DataFile(location: String, size: Long, format: String)

  /**
   * Whether a scan reads a table's snapshot for a query: Iceberg's batch query scan of a table,
   * not the scan of a row-level operation (whose read decides which files it rewrites), nor a
   * changelog, a metadata table or a staged rewrite.
   */
  def readsSnapshot(scan: Scan, table: Table): Boolean =
    scan != null && table != null && scan.getClass.getName == QueryScan && table.getClass.getName == QueryTable

  /** The location of the table the scan reads, qualified: the key of its Skipstone metadata. */
  def root(conf: Configuration, scan: Scan): String = IcebergTables.root(conf, Reflective.call(scan, "table"))

  /** The snapshot the scan reads, with the schema Iceberg reads it with (the snapshot's, under time travel). */
  def snapshot(conf: Configuration, scan: Scan): IcebergSnapshot = {
    val table = Reflective.call(scan, "table")
    val id = Option(Reflective.call(scan, "snapshotId")).map(_.asInstanceOf[java.lang.Long].longValue)
    IcebergTables.snapshot(conf, table, id, Reflective.call(scan, "schema"))
  }

  /** The scan's tasks, as Iceberg planned them (it plans once, when Spark first asks). */
  def tasks(scan: Scan): Seq[AnyRef] = taskList(scan).asScala.toSeq

  /** The data file a task reads, or None for a task of another kind (which is always read). */
  def dataFile(task: AnyRef): Option[DataFile] = Try {
    val file = Reflective.call(task, "file")
    DataFile(Reflective.call(file, "location").toString, Reflective.call(file, "fileSizeInBytes").asInstanceOf[java.lang.Long],
      Reflective.call(file, "format").toString)
  }.toOption

  /**
   * Keeps only the tasks `keep` accepts, remembering `by` (what narrowed them) and every task.
   * Spark then plans its partitions from the tasks kept; a batch Spark already made keeps the
   * tasks it had, so the caller plans a new scan node.
   */
  def narrow(scan: Scan, keep: AnyRef => Boolean, by: AnyRef): Unit = {
    val all = taskList(scan)
    // The partition specs a scan reports to runtime filters come from its tasks, once; Iceberg
    // requires them never to change when tasks are reset, so they are taken from every task first.
    Reflective.call(scan, "specs")
    Reflective.call(scan, "resetTasks", new NarrowedTasks(all.asScala.filter(keep).asJava, all, by))
  }

  /**
   * Gives the scan every task (back, if [[narrow]] took some), marked by `by`: what [[narrowedBy]]
   * answers from then on, so that nothing narrows the scan again.
   */
  def widen(scan: Scan, by: AnyRef): Unit = {
    val all = Try(Reflective.field(scan, "tasks")).toOption.collect { case narrowed: NarrowedTasks => narrowed.all }
      .getOrElse(taskList(scan))
    Reflective.call(scan, "resetTasks", new NarrowedTasks(all, all, by))
  }

  /** What [[narrow]] or [[widen]] marked the scan's tasks with (unless a runtime filter reset them since). */
  def narrowedBy(scan: Scan): Option[AnyRef] =
    Try(Reflective.field(scan, "tasks")).toOption.collect { case narrowed: NarrowedTasks => narrowed.by }

  private def taskList(scan: Scan): java.util.List[AnyRef] =
    Reflective.call(scan, "tasks").asInstanceOf[java.util.List[AnyRef]]

  /** The tasks a scan keeps, marked as Skipstone's: a later planning of the same scan recognises them. */
  private final class NarrowedTasks(kept: java.util.List[AnyRef], val all: java.util.List[AnyRef], val by: AnyRef)
    extends java.util.AbstractList[AnyRef] {
    override def get(index: Int): AnyRef = kept.get(index)
    override def size(): Int = kept.size()
  }
}
