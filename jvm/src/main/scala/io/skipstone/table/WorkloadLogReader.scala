package io.skipstone.table

import java.nio.charset.StandardCharsets
import java.nio.file.Files
import java.nio.file.attribute.BasicFileAttributes
import java.util.concurrent.{Callable, Executors}

import scala.io.Source
import scala.jdk.CollectionConverters._
import scala.util.Try
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{LocalFileSystem, Path}
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions.{col, input_file_name, regexp_extract}
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
 *
 * An optimizer that keeps what it already read asks only for what follows ([[after]]): the
 * records of the files named after the newest it read, with a [[LogCursor]] to ask from next
 * time. Past 5,000 files the whole log went to a Spark job at every call (5-17 s at 7,200 files
 * on a loaded machine); now the driver reads the files it has not cached (a job only when those
 * are more than 5,000), which for a cursor are the new files of a few dozen queries. The cursor
 * is valid while the files up to it are exactly those it read (their count and a digest of their
 * names and lengths: a file removed, added before it, rewritten or still growing changes one) and
 * no new record is older than the newest it saw; otherwise the answer is the whole log, and says so.
 *
 * A compacted log ([[WorkloadLogCompaction]]) has files `0-compacted-<n>.json` whose first line
 * names the files they replace: every answer here leaves those out, whether they are deleted yet
 * or not, so that each record is read once.
 */
private[table] object WorkloadLogReader {
  val DriverFileLimit = 5000
  private val Threads = 8
  private val CachedFiles = 20000

  private final case class FileKey(path: String, length: Long, modified: Long)

  /** One file of the log as listed: its name (under the log's directory), length and modification time. */
  private[table] final case class LogFile(name: String, length: Long, modified: Long)

  /**
   * The log's files as listed (`all`), what each compacted one replaces (`headers`, by its name)
   * and the files an answer reads (`live`): all less those replaced.
   */
  private[table] final case class Listing(conf: Configuration, dir: Path, all: Seq[LogFile],
                                          headers: Map[String, Seq[String]]) {
    val replaced: Set[String] = headers.values.flatten.toSet
    def live: Seq[LogFile] = all.filterNot(f => replaced.contains(f.name))
  }

  private val CompactedFile = """0-compacted-(\d{20})\.json""".r
  private val HeaderField = "compacted"

  /** The name of the compacted file of `generation`. */
  private[table] def compactedName(generation: Long): String = f"0-compacted-$generation%020d.json"

  /** The generation of a compacted file's name; None for other files. */
  private[table] def generationOf(name: String): Option[Long] = name match {
    case CompactedFile(generation) => Some(generation.toLong)
    case _ => None
  }

  /** Whether a parsed line is a compacted file's header, not a record. */
  private[table] def isHeader(o: JObject): Boolean = o.obj.exists(_._1 == HeaderField)

  /** The compacted files' headers: written once, so read once per JVM. */
  private val headerCache = java.util.Collections.synchronizedMap(
    new java.util.LinkedHashMap[FileKey, Seq[String]](16, 0.75f, true) {
      override def removeEldestEntry(eldest: java.util.Map.Entry[FileKey, Seq[String]]): Boolean = size() > 1000
    })

  private val cache = java.util.Collections.synchronizedMap(
    new java.util.LinkedHashMap[FileKey, Seq[Row]](1024, 0.75f, true) {
      override def removeEldestEntry(eldest: java.util.Map.Entry[FileKey, Seq[Row]]): Boolean = size() > CachedFiles
    })

  val Schema: StructType = StructType.fromDDL(WorkloadRecord.Schema)

  def frame(session: SparkSession, root: String): DataFrame = relisting {
    val (conf, dir, files) = listed(session, root)
    if (files.size > DriverFileLimit) byJob(session, dir, files)
    else session.createDataFrame(read(conf, dir, files).asJava, Schema)
  }

  /** Every record as a row of [[Schema]], in no particular order. */
  def records(session: SparkSession, root: String): Seq[Row] = relisting {
    val (conf, dir, files) = listed(session, root)
    if (files.size > DriverFileLimit) byJob(session, dir, files).collect().toSeq else read(conf, dir, files)
  }

  /**
   * `read` again, from a new listing, when a file it listed was gone when it came to read it: a
   * compaction published a file holding its records meanwhile (and deleted it), which the new
   * listing finds. Three tries; compactions are rare (one per vacuum).
   */
  private def relisting[T](read: => T): T = {
    def attempt(left: Int): T = try read catch {
      case NonFatal(e) if left > 1 && Iterator.iterate(e)(_.getCause).takeWhile(_ != null)
        .exists(_.isInstanceOf[java.io.FileNotFoundException]) => attempt(left - 1)
    }
    attempt(3)
  }

  /**
   * The log's usable records (time, version and predicate present) in the log's order, oldest
   * first: by time, then by file name, then by line; with `cursor` (from an earlier call) only
   * those after it when it is still valid. Returns whether the records are the whole log, the
   * records, and the cursor after them.
   */
  def after(session: SparkSession, root: String, cursor: Option[LogCursor]): (Boolean, Seq[Row], LogCursor) =
    relisting(afterListing(session, root, cursor))

  private def afterListing(session: SparkSession, root: String,
                           cursor: Option[LogCursor]): (Boolean, Seq[Row], LogCursor) = {
    val (conf, dir, listing) = listed(session, root)
    Failpoints.check("workloadLog.read.afterListing")
    val files = listing.sortBy(_.name)
    val known = cursor.map(c => files.takeWhile(_.name <= c.lastFile)).getOrElse(Seq.empty)
    val valid = cursor.exists(c => c.files == known.size && c.digest == LogCursor.digest(known))
    val records = if (valid) ordered(session, conf, dir, files.drop(known.size), whole = false)
      else ordered(session, conf, dir, files, whole = true)
    val newest = cursor.filter(_ => valid).map(_.lastTime).getOrElse(Long.MinValue)
    if (valid && records.headOption.exists(_.getLong(0) < newest)) afterListing(session, root, None) // a record from the past
    else {
      val lastTime = (newest +: records.map(_.getLong(0))).max
      val next = if (files.isEmpty) LogCursor("", 0, 0L, lastTime)
        else LogCursor(files.last.name, files.size, LogCursor.digest(files), lastTime)
      (!valid, records, next)
    }
  }

  /** The usable records of `files` in the log's order (see [[after]]); `whole` when they are all the log's. */
  private def ordered(session: SparkSession, conf: Configuration, dir: Path, files: Seq[LogFile],
                      whole: Boolean): Seq[Row] = {
    // the driver reads what it has not cached; a Spark job only when that is many files
    val rows: Seq[(Row, String)] =
      if (files.count(f => !cache.containsKey(keyOf(dir, f))) > DriverFileLimit) {
        val source = if (whole) Seq(dir.toString) else files.map(f => new Path(dir, f.name).toString)
        val listedNames = files.map(_.name).toSet // the job lists anew: keep the files this answer covers
        session.read.schema(Schema).json(source: _*)
          .select((Schema.fieldNames.toIndexedSeq.map(col) :+ input_file_name()): _*).collect().toSeq
          .map(r => (Row.fromSeq(r.toSeq.init), new Path(r.getString(r.length - 1)).getName))
          .filter { case (_, name) => listedNames.contains(name) }
      } else files.zip(readEach(conf, dir, files)).flatMap { case (f, rows) => rows.map(r => (r, f.name)) }
    // a stable sort: lines of one file keep their order
    rows.filter { case (r, _) => !r.isNullAt(0) && !r.isNullAt(1) && !r.isNullAt(2) }
      .sortBy { case (r, name) => (r.getLong(0), name) }.map(_._1)
  }

  /** The records of `files` by a Spark job: the directory read whole, the other files left out. */
  private def byJob(session: SparkSession, dir: Path, files: Seq[LogFile]): DataFrame = {
    val names = files.map(_.name)
    session.read.schema(Schema).json(dir.toString)
      .where(regexp_extract(input_file_name(), "[^/]*$", 0).isin(names: _*))
      // a line that is no record (a compacted file's header, a torn line) reads as all nulls:
      // the driver's reader skips those lines
      .where(Schema.fieldNames.map(col(_).isNotNull).reduce(_ || _))
  }

  /**
   * The log's JSON files. On the local file system by Java's own listing: Hadoop's builds a
   * qualified path and a status per file, 0.2-0.6 s for 7,200 files on a loaded machine, which an
   * optimizer reading only the newest few dozen paid at every call.
   */
  private def listed(session: SparkSession, root: String): (Configuration, Path, Seq[LogFile]) = {
    val found = listing(session, root)
    (found.conf, found.dir, found.live)
  }

  /** The log's files, and what its compacted files replace. */
  private[table] def listing(session: SparkSession, root: String): Listing = {
    val (conf, dir, files) = listedAll(session, root)
    val headers = files.flatMap { f =>
      generationOf(f.name).map(_ => f.name -> headerOf(conf, dir, f))
    }.toMap
    Listing(conf, dir, files, headers)
  }

  /** The names a compacted file's first line says it replaces (none when the line is unreadable). */
  private def headerOf(conf: Configuration, dir: Path, f: LogFile): Seq[String] = {
    val key = keyOf(dir, f)
    Option(headerCache.get(key)).getOrElse {
      val in = new Path(dir, f.name).getFileSystem(conf).open(new Path(dir, f.name))
      val first = try Option(new java.io.BufferedReader(new java.io.InputStreamReader(in, StandardCharsets.UTF_8))
        .readLine()) finally in.close()
      val names = first.flatMap(line => Try(JsonMethods.parse(line)).toOption).toSeq.flatMap { json =>
        (json \ HeaderField \ "replaces") match {
          case JArray(values) => values.collect { case JString(n) => n }
          case _ => Nil
        }
      }
      headerCache.put(key, names)
      names
    }
  }

  private def listedAll(session: SparkSession, root: String): (Configuration, Path, Seq[LogFile]) = {
    val dir = WorkloadLog.dir(root)
    val conf = session.sessionState.newHadoopConf()
    val fs = dir.getFileSystem(conf)
    val files = fs match {
      case local: LocalFileSystem =>
        val path = local.pathToFile(dir).toPath
        if (!Files.isDirectory(path)) Seq.empty
        else {
          val stream = Files.newDirectoryStream(path, "*.json")
          try stream.asScala.toSeq.flatMap { p =>
            val attributes = Try(Files.readAttributes(p, classOf[BasicFileAttributes])).toOption // gone meanwhile
            attributes.filter(_.isRegularFile)
              .map(a => LogFile(p.getFileName.toString, a.size, a.lastModifiedTime.toMillis))
          } finally stream.close()
        }
      case _ =>
        if (fs.exists(dir)) fs.listStatus(dir).toSeq.filter(s => s.isFile && s.getPath.getName.endsWith(".json"))
          .map(s => LogFile(s.getPath.getName, s.getLen, s.getModificationTime))
        else Seq.empty
    }
    (conf, dir, files)
  }

  private def keyOf(dir: Path, f: LogFile): FileKey = FileKey(s"$dir/${f.name}", f.length, f.modified)

  private def read(conf: Configuration, dir: Path, files: Seq[LogFile]): Seq[Row] = readEach(conf, dir, files).flatten

  /** The rows of each file, in the order of `files`. */
  private def readEach(conf: Configuration, dir: Path, files: Seq[LogFile]): Seq[Seq[Row]] = {
    val keyed = files.map(f => (f, keyOf(dir, f)))
    val missing = keyed.filterNot { case (_, key) => cache.containsKey(key) }
    if (missing.nonEmpty) {
      val pool = Executors.newFixedThreadPool(math.min(Threads, missing.size))
      try {
        val tasks = missing.map { case (f, key) =>
          new Callable[Unit] { def call(): Unit = cache.put(key, rowsOf(conf, new Path(dir, f.name))) }
        }
        pool.invokeAll(tasks.asJava).asScala.foreach(_.get())
      } finally pool.shutdown()
    }
    // a file evicted between the put and here (more than CachedFiles new ones) is read again
    keyed.map { case (f, key) => Option(cache.get(key)).getOrElse(rowsOf(conf, new Path(dir, f.name))) }
  }

  private def rowsOf(conf: Configuration, file: Path): Seq[Row] = {
    val in = file.getFileSystem(conf).open(file)
    try Source.fromInputStream(in, StandardCharsets.UTF_8.name).getLines().toList.flatMap(row)
    finally in.close()
  }

  /** One logged record as a row of [[Schema]]; None when the line is not a JSON object. */
  private[table] def row(line: String): Option[Row] = {
    val parsed = try JsonMethods.parseOpt(line) catch { case NonFatal(_) => None }
    parsed.collect { case o: JObject if !isHeader(o) =>
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

/**
 * Where a reader of the workload log stopped: the newest file it read (by name, which starts
 * with the millisecond it was written), how many files up to that one, a digest of their names
 * and lengths, and the newest record's time. Python keeps it as the JSON text [[toJson]] gives.
 */
private[table] final case class LogCursor(lastFile: String, files: Int, digest: Long, lastTime: Long) {
  def toJson: JValue = JObject("file" -> JString(lastFile), "files" -> JInt(files), "digest" -> JString(digest.toString),
    "time" -> JString(lastTime.toString))
}

private[table] object LogCursor {
  /** Order-free, so that the files may come in any order; a 64-bit mix of each name and length. */
  def digest(files: Seq[WorkloadLogReader.LogFile]): Long = files.map { f =>
    val key = s"${f.name}/${f.length}"
    (scala.util.hashing.MurmurHash3.stringHash(key).toLong << 32) ^ (key.hashCode.toLong & 0xffffffffL)
  }.sum

  /** The cursor of [[toJson]]'s text; None for an empty or unreadable text (then the whole log is read). */
  def fromJson(text: String): Option[LogCursor] = Option(text).filter(_.nonEmpty).flatMap { t =>
    try {
      val fields = JsonMethods.parse(t).asInstanceOf[JObject].obj.toMap
      Some(LogCursor(fields("file").asInstanceOf[JString].s, fields("files").asInstanceOf[JInt].num.toInt,
        fields("digest").asInstanceOf[JString].s.toLong, fields("time").asInstanceOf[JString].s.toLong))
    } catch { case NonFatal(_) => None }
  }
}
