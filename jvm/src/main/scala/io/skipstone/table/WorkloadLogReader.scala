package io.skipstone.table

import java.nio.charset.StandardCharsets
import java.util.concurrent.{Callable, Executors}

import scala.io.Source
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.StructType
import org.json4s._
import org.json4s.jackson.JsonMethods

/**
 * Reads a table's workload log. The log is many small files (one per burst of queries, see
 * [[WorkloadLog]]); a Spark job over hundreds of them took seconds, which an optimizer asking
 * every few dozen queries paid each time, so up to [[DriverFileLimit]] files the driver lists
 * and reads them itself, a few at a time; beyond that a Spark job reads them in parallel. Both
 * give the same rows: a line that is not a JSON object (a file another process is still
 * writing on a store without atomic creates) is skipped, a missing field is null.
 *
 * A log file is written once and never changed, and an optimizer asks again every few dozen
 * queries, so the driver keeps the rows of the files it read (at most [[CachedFiles]] of them,
 * least recently used out), keyed by path, length and modification time: a file still being
 * written, or one replaced, differs in one of them and is read again. Each call then reads only
 * the files added since the last (a listing, and the rows of the new files).
 */
private[table] object WorkloadLogReader {
  val DriverFileLimit = 5000
  private val Threads = 8
  private val CachedFiles = 20000

  private final case class FileKey(path: String, length: Long, modified: Long)

  private val cache = java.util.Collections.synchronizedMap(
    new java.util.LinkedHashMap[FileKey, Seq[Row]](1024, 0.75f, true) {
      override def removeEldestEntry(eldest: java.util.Map.Entry[FileKey, Seq[Row]]): Boolean = size() > CachedFiles
    })

  val Schema: StructType = StructType.fromDDL(WorkloadRecord.Schema)

  def frame(session: SparkSession, root: String): DataFrame = {
    val (conf, files) = listed(session, root)
    if (files.size > DriverFileLimit) byJob(session, root)
    else session.createDataFrame(read(conf, files).asJava, Schema)
  }

  /** Every record as a row of [[Schema]], in no particular order. */
  def records(session: SparkSession, root: String): Seq[Row] = {
    val (conf, files) = listed(session, root)
    if (files.size > DriverFileLimit) byJob(session, root).collect().toSeq else read(conf, files)
  }

  private def byJob(session: SparkSession, root: String): DataFrame =
    session.read.schema(Schema).json(WorkloadLog.dir(root).toString)

  private def listed(session: SparkSession, root: String): (Configuration, Seq[FileStatus]) = {
    val dir = WorkloadLog.dir(root)
    val conf = session.sessionState.newHadoopConf()
    val fs = dir.getFileSystem(conf)
    val files = if (fs.exists(dir)) fs.listStatus(dir).toSeq.filter(s => s.isFile && s.getPath.getName.endsWith(".json"))
      else Seq.empty
    (conf, files)
  }

  private def read(conf: Configuration, files: Seq[FileStatus]): Seq[Row] = {
    val keyed = files.map(f => (f.getPath, FileKey(f.getPath.toString, f.getLen, f.getModificationTime)))
    val missing = keyed.filterNot { case (_, key) => cache.containsKey(key) }
    if (missing.nonEmpty) {
      val pool = Executors.newFixedThreadPool(math.min(Threads, missing.size))
      try {
        val tasks = missing.map { case (path, key) =>
          new Callable[Unit] { def call(): Unit = cache.put(key, rowsOf(conf, path)) }
        }
        pool.invokeAll(tasks.asJava).asScala.foreach(_.get())
      } finally pool.shutdown()
    }
    // a file evicted between the put and here (more than CachedFiles new ones) is read again
    keyed.flatMap { case (path, key) => Option(cache.get(key)).getOrElse(rowsOf(conf, path)) }
  }

  private def rowsOf(conf: Configuration, file: Path): Seq[Row] = {
    val in = file.getFileSystem(conf).open(file)
    try Source.fromInputStream(in, StandardCharsets.UTF_8.name).getLines().toList.flatMap(row)
    finally in.close()
  }

  /** One logged record as a row of [[Schema]]; None when the line is not a JSON object. */
  private[table] def row(line: String): Option[Row] = {
    val parsed = try JsonMethods.parseOpt(line) catch { case NonFatal(_) => None }
    parsed.collect { case o: JObject =>
      val fields = o.obj.toMap
      def long(name: String): Any = fields.get(name) match {
        case Some(JInt(v)) => v.toLong
        case Some(JLong(v)) => v
        case _ => null
      }
      def double(name: String): Any = fields.get(name) match {
        case Some(JDouble(v)) => v
        case Some(JDecimal(v)) => v.toDouble
        case Some(JInt(v)) => v.toDouble
        case Some(JLong(v)) => v.toDouble
        case _ => null
      }
      def string(name: String): Any = fields.get(name) match {
        case Some(JString(v)) => v
        case _ => null
      }
      Row(long("time"), long("version"), string("predicate"), long("files_read"), long("files_total"),
        long("bytes_read"), long("bytes_total"), double("duration_ms"), string("application"), double("read_share"))
    }
  }
}
