package io.skipstone.query

import java.util.concurrent.{Callable, ConcurrentHashMap, ExecutorService, Executors, Future, ThreadFactory, TimeUnit}

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.SQLExecution

import io.skipstone.indexing.IndexBuild

/**
 * Runs the automatic refreshes queries ask for (docs/partial-indexes.md): at most one at a time
 * per dataset in this JVM, on a background thread, so that a query waits for one no longer than
 * its index's `auto_refresh_max_seconds` and never fails because of one.
 *
 * A refresh publishes a version like any other (the store's atomic publish decides between
 * racing publishers, in this JVM or another): a version written from an older one merely lacks
 * the files the other indexed, which are then read, never skipped wrongly, until indexed again.
 */
object AutoRefresher extends Logging {
  private val running = new ConcurrentHashMap[String, Future[Option[Long]]]()

  // Threads of our own: a refresh must not run inside the query's SQL execution or job group.
  private lazy val threads: ExecutorService = Executors.newCachedThreadPool(new ThreadFactory {
    private val count = new java.util.concurrent.atomic.AtomicInteger()
    override def newThread(r: Runnable): Thread = {
      val t = new Thread(r, s"skipstone-auto-refresh-${count.incrementAndGet()}")
      t.setDaemon(true)
      t
    }
  })

  /** Set on a refresh's own thread: the listings its reads make start no refresh. */
  private val refreshing = new ThreadLocal[Boolean] { override def initialValue(): Boolean = false }

  def isRefreshing: Boolean = refreshing.get()

  /**
   * The refresh of `root` running now, or one started to index `files` when none is. A started
   * refresh clears the query's thread-local Spark properties (its SQL execution, job group),
   * which threads inherit.
   */
  def refresh(session: SparkSession, root: String, files: Seq[String]): Future[Option[Long]] =
    running.compute(root, (_, now) => if (now != null && !now.isDone) now else threads.submit(new Callable[Option[Long]] {
      override def call(): Option[Long] = {
        val sc = session.sparkContext
        Seq(SQLExecution.EXECUTION_ID_KEY, "spark.sql.execution.root.id", "spark.jobGroup.id", "spark.job.description",
          "spark.job.interruptOnCancel", "spark.job.tags").foreach(sc.setLocalProperty(_, null))
        sc.setJobDescription(s"Skipstone: automatic refresh of $root (${files.size} new files)")
        SparkSession.setActiveSession(session)
        refreshing.set(true)
        try {
          val version = IndexBuild.indexListed(session, root, files)
          version.foreach(v => logInfo(s"Skipstone: automatic refresh of $root indexed ${files.size} files: metadata version $v"))
          version
        } catch {
          case NonFatal(e) =>
            logWarning(s"Skipstone: automatic refresh of $root failed; its new files are read until a refresh indexes them", e)
            None
        } finally {
          refreshing.set(false)
          SparkSession.clearActiveSession()
        }
      }
    }))

  /** The refresh's published version if it ends within `seconds`, else None (it goes on in the background). */
  def await(refresh: Future[Option[Long]], seconds: Double): Option[Long] =
    if (seconds <= 0 && !refresh.isDone) None
    else try refresh.get(math.max(0L, (seconds * 1000).toLong), TimeUnit.MILLISECONDS) catch {
      case _: java.util.concurrent.TimeoutException => None
      case NonFatal(e) => logWarning("Skipstone: automatic refresh failed", e); None
    }

  /** Waits for every refresh running now, for tests and shutdown (`timeoutSeconds` each). */
  def awaitAll(timeoutSeconds: Double): Unit =
    running.values().forEach(f => await(f, timeoutSeconds))
}
