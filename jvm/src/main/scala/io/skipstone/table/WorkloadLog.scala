package io.skipstone.table

import java.nio.charset.StandardCharsets
import java.util.UUID
import java.util.concurrent.{ArrayBlockingQueue, Executors, ThreadFactory, TimeUnit}
import java.util.concurrent.atomic.{AtomicBoolean, AtomicLong}

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import org.apache.spark.internal.Logging

/**
 * Appends workload records to each table's container off the query's path: queries only offer
 * a record to a bounded queue (a full queue drops it and counts the drop, never blocks), and
 * one daemon thread writes what accumulated, a short while after the first record so that a
 * burst of queries costs one file, as one new file per table,
 * `<root>/_skipstone/workload/<millis>-<uuid>.json`. New files instead of appends, so that
 * sessions and applications writing at once never touch the same file, and the log is their union.
 */
object WorkloadLog extends Logging {
  val Capacity = 10000
  /** How long the first record of a batch waits for others: one file per burst, not per query. */
  val LingerMillis = 500L
  private val queue = new ArrayBlockingQueue[(Configuration, WorkloadRecord)](Capacity)
  private val scheduled = new AtomicBoolean(false)
  private val droppedCount = new AtomicLong(0)
  private val writer = Executors.newSingleThreadScheduledExecutor(new ThreadFactory {
    override def newThread(r: Runnable): Thread = {
      val t = new Thread(r, "skipstone-workload-log")
      t.setDaemon(true)
      t
    }
  })

  def dir(root: String): Path = new Path(new Path(root, TableLog.ContainerDir), "workload")

  def record(conf: Configuration, r: WorkloadRecord): Unit = {
    if (!queue.offer((conf, r))) droppedCount.incrementAndGet()
    else if (scheduled.compareAndSet(false, true)) writer.schedule(new Runnable { def run(): Unit = drain() },
      LingerMillis, TimeUnit.MILLISECONDS)
  }

  /** Records dropped because the queue was full (the writer could not keep up). */
  def dropped: Long = droppedCount.get()

  /** Writes everything offered so far before returning. */
  def flush(): Unit = writer.submit(new Runnable { def run(): Unit = drain() }).get()

  private def drain(): Unit = {
    // Reset first: a record offered while we drain schedules another drain instead of waiting.
    scheduled.set(false)
    val batch = new java.util.ArrayList[(Configuration, WorkloadRecord)]()
    queue.drainTo(batch)
    batch.asScala.groupBy(_._2.root).foreach { case (root, records) =>
      try write(records.head._1, root, records.map(_._2).toSeq)
      catch { case NonFatal(e) => logWarning(s"Skipstone: could not append ${records.size} workload records to $root", e) }
    }
  }

  private def write(conf: Configuration, root: String, records: Seq[WorkloadRecord]): Unit = {
    val file = new Path(dir(root), s"${System.currentTimeMillis()}-${UUID.randomUUID()}.json")
    val out = file.getFileSystem(conf).create(file, false)
    try out.write(records.map(_.toJsonLine).mkString("", "\n", "\n").getBytes(StandardCharsets.UTF_8))
    finally out.close()
  }
}
