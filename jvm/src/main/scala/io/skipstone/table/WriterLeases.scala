package io.skipstone.table

import java.nio.charset.StandardCharsets
import java.util.UUID
import java.util.concurrent.{ConcurrentHashMap, Executors, ScheduledFuture, ThreadFactory, TimeUnit}

import scala.util.Try
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.json4s._
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

/**
 * Leases of writers in flight. A writer's files exist before any version lists them (staged,
 * moved into the root, their skipping metadata published): to a vacuum they look exactly like a
 * dead writer's leftovers. So a writer holds a lease, `_skipstone/leases/<uuid>.json`, from
 * before its first file until it committed or cleaned up, naming its staging directory, the
 * version it read and when it started; the file's modification time is refreshed in the
 * background and the lease lapses `TtlMillis` after the last refresh (a killed writer's lease
 * lapses and its leftovers become vacuumable again). A vacuum, even a forced one, keeps while a
 * lease is live: the version it read and everything after, and every staging directory, uncommitted
 * data file, metadata version and sample made since the lease started.
 */
object WriterLeases extends Logging {
  val TtlMillis: Long = 10 * 60 * 1000L
  private val RefreshMillis = 20 * 1000L
  private implicit val formats: Formats = DefaultFormats

  /** A live lease: when its writer started, the version it read, its staging directory. */
  final case class Lease(file: Path, sinceMillis: Long, readVersion: Long, staging: Option[String])

  private val refresher = Executors.newSingleThreadScheduledExecutor(new ThreadFactory {
    override def newThread(r: Runnable): Thread = {
      val t = new Thread(r, "skipstone-writer-leases")
      t.setDaemon(true)
      t
    }
  })
  private val held = new ConcurrentHashMap[String, ScheduledFuture[_]]()

  def dir(root: String): Path = new Path(new Path(root, TableLog.ContainerDir), "leases")

  /** Takes a lease for a writer of `root` that read `readVersion` and stages into `staging`; its path. */
  def acquire(session: SparkSession, root: String, operation: String, staging: String, readVersion: Long): String = {
    val conf = session.sessionState.newHadoopConf()
    val leases = dir(root)
    val fs = leases.getFileSystem(conf)
    val json = ("operation" -> operation) ~ ("sinceMillis" -> System.currentTimeMillis()) ~
      ("readVersion" -> readVersion) ~ ("staging" -> staging) ~ ("ttlMillis" -> TtlMillis)
    val name = UUID.randomUUID().toString
    // written whole under a temporary name, then renamed: a vacuum never reads half a lease
    val tmp = new Path(leases, s".$name.tmp")
    val out = fs.create(tmp, false)
    try out.write(JsonMethods.compact(JsonMethods.render(json)).getBytes(StandardCharsets.UTF_8)) finally out.close()
    val lease = new Path(leases, s"$name.json")
    if (!fs.rename(tmp, lease)) throw new IllegalStateException(s"$root: could not take a writer lease at $lease")
    val refresh: Runnable = () => try fs.setTimes(lease, System.currentTimeMillis(), -1) catch {
      case NonFatal(e) => logWarning(s"Skipstone: could not refresh the writer lease $lease: ${e.getMessage}")
    }
    held.put(lease.toString, refresher.scheduleWithFixedDelay(refresh, RefreshMillis, RefreshMillis, TimeUnit.MILLISECONDS))
    lease.toString
  }

  /** Ends a lease: the writer committed or removed what it wrote. */
  def release(session: SparkSession, lease: String): Unit = {
    Option(held.remove(lease)).foreach(_.cancel(false))
    val path = new Path(lease)
    Try(path.getFileSystem(session.sessionState.newHadoopConf()).delete(path, false))
  }

  /** Runs `body` under a lease (the JVM's own writers). */
  def holding[T](session: SparkSession, root: String, operation: String, staging: String, readVersion: Long)(body: => T): T = {
    val lease = acquire(session, root, operation, staging, readVersion)
    try body finally release(session, lease)
  }

  /** The leases of `root` live at `nowMillis`, and the files of lapsed ones (for vacuum to remove). */
  def scan(conf: Configuration, root: String, nowMillis: Long): (Seq[Lease], Seq[Path]) = {
    val leases = dir(root)
    val fs: FileSystem = leases.getFileSystem(conf)
    if (!fs.exists(leases)) return (Nil, Nil)
    val entries = fs.listStatus(leases).toSeq.filter(s => s.getPath.getName.endsWith(".json") && !s.getPath.getName.startsWith("."))
    val (live, lapsed) = entries.partition(s => s.getModificationTime + TtlMillis > nowMillis)
    (live.map { s =>
      // a lease that cannot be read protects everything since the beginning: never delete on a guess
      Try {
        val in = fs.open(s.getPath)
        val j = try JsonMethods.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8)) finally in.close()
        Lease(s.getPath, (j \ "sinceMillis").extract[Long], (j \ "readVersion").extract[Long], (j \ "staging").extractOpt[String])
      }.getOrElse(Lease(s.getPath, 0L, 0L, None))
    }, lapsed.map(_.getPath))
  }
}
