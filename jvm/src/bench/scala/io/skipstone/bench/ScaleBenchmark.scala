package io.skipstone.bench

import java.lang.management.ManagementFactory

import org.apache.hadoop.fs.{FileStatus, Path}

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.Filter
import org.apache.spark.sql.classic.{Dataset => ClassicDataset}
import org.apache.spark.sql.execution.datasources.{FileStatusWithMetadata, PartitionDirectory}
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import io.skipstone.metadata.{CacheConf, FileIdentity, FilePaths, MetadataCache}
import io.skipstone.query.{FileSkipper, JobCounter, QueryRead, SkipVerification}

/**
 * Planning at scale (issue 12), for `benchmarks/experiments/scale.py`: one dataset whose
 * current metadata version describes N files (synthetic, written straight as a metadata table).
 *
 *  - cold: the optimizer of a fresh query loads the version (jobs started meanwhile counted);
 *  - memory: driver heap held by the loaded version, measured after full GCs;
 *  - warm: evaluating the clause and pruning a listing of all N files, as listFiles does;
 *  - verify: the freshness check of the skip candidates against the file system, timed on
 *    real (empty) files of `verifyDir` and scaled to the number of candidates when there are fewer;
 *    a managed table's files skip it (see [[SkipVerification]]).
 */
object ScaleBenchmark {
  def run(session: SparkSession, datasetRoot: String, sql: String, runs: Int, verifyDir: String): String = {
    def query = session.read.parquet(datasetRoot).where(sql).asInstanceOf[ClassicDataset[_]]
    MetadataCache.clear()
    // Created (and analyzed, which infers the Parquet schema with a job) before anything is counted.
    val cold = query
    val heapBefore = usedHeap()
    val ((_, coldNanos), jobs) = JobCounter.around(session.sparkContext)(timed(cold.queryExecution.optimizedPlan))
    val coldMs = coldNanos / 1e6
    val metadata = MetadataCache.current(session, datasetRoot).getOrElse(
      throw new IllegalArgumentException(s"$datasetRoot has no usable Skipstone metadata"))
    val heldBytes = usedHeap() - heapBefore

    val plan = query.queryExecution.optimizedPlan
    val filter = plan.collectFirst { case f: Filter => f }.getOrElse(
      throw new IllegalArgumentException(s"'$sql' leaves no filter to evaluate"))
    val listing = Seq(PartitionDirectory(InternalRow.empty, PlanningBenchmark.listingOf(metadata)))
    val read = QueryRead(filter.child.schema, metadata.definition.context.get, session.sessionState.conf.resolver)
    val timings = (1 to runs).map { _ =>
      val t0 = System.nanoTime()
      val (_, stats) = new FileSkipper(metadata, filter.condition, read, SkipVerification.Trusted).prune(listing)
      (System.nanoTime() - t0, stats)
    }
    val millis = timings.map(_._1 / 1e6).sorted
    val stats = timings.last._2
    val warmPlanMs = (1 to runs).map { _ => val q = query; timed(q.queryExecution.optimizedPlan)._2 / 1e6 }.sorted

    val accounted = metadata.sizeBytes.toDouble / math.max(1, metadata.fileCount)
    val byKind = metadata.bytesByKind.map { case (k, b) => k -> b.toDouble / math.max(1, metadata.fileCount) }.toMap
    val (distributedMs, distributedSkipped) = distributedRun(session, datasetRoot, filter.condition, read, listing)

    val verifyPerFileUs = verifyMicros(session, verifyDir, math.min(stats.filesSkipped, 200000L).toInt)
    val verifyMs = verifyPerFileUs * stats.filesSkipped / 1000.0
    JsonMethods.compact(JsonMethods.render(
      ("files" -> metadata.fileCount) ~ ("skipped" -> stats.filesSkipped) ~
        ("cold_optimize_ms" -> coldMs) ~ ("jobs_during_cold_planning" -> jobs) ~
        ("held_bytes" -> heldBytes) ~ ("accounted_bytes_per_file" -> accounted) ~ ("bytes_per_file_by_kind" -> byKind) ~
        ("distributed_evaluate_prune_ms" -> distributedMs) ~ ("distributed_skipped" -> distributedSkipped) ~ ("held_bytes_per_file" -> heldBytes.toDouble / math.max(1, metadata.fileCount)) ~
        ("evaluate_prune_p50_ms" -> millis(millis.size / 2)) ~ ("evaluate_prune_min_ms" -> millis.head) ~
        ("warm_optimize_p50_ms" -> warmPlanMs(warmPlanMs.size / 2)) ~
        ("verify_us_per_file" -> verifyPerFileUs) ~ ("verify_ms" -> verifyMs) ~
        ("planning_p50_ms" -> (millis(millis.size / 2) + verifyMs)) ~
        ("managed_planning_p50_ms" -> millis(millis.size / 2))))
  }

  /** One prune with the version evaluated as a Spark job over its table (not held on the driver). */
  private def distributedRun(session: SparkSession, datasetRoot: String, condition: Expression, read: QueryRead,
                             listing: Seq[PartitionDirectory]): (Double, Long) = {
    session.conf.set(CacheConf.DistributedMinFiles, "0")
    try {
      MetadataCache.clear()
      val metadata = MetadataCache.current(session, datasetRoot).filter(_.isDistributed).getOrElse(
        throw new IllegalStateException(s"$datasetRoot: the version was not left to Spark"))
      // Synthetic files do not exist: take the listing's word.
      val ((_, stats), nanos) = timed(new FileSkipper(metadata, condition, read, SkipVerification.Trusted)
        .prune(listing, Some(session)))
      (nanos / 1e6, stats.filesSkipped)
    } finally {
      session.conf.unset(CacheConf.DistributedMinFiles)
      MetadataCache.clear()
    }
  }

  /** Median over 3 runs of FileIdentity.current on `count` real files of `dir`, per file. */
  private def verifyMicros(session: SparkSession, dir: String, count: Int): Double = if (count == 0) 0.0 else {
    val conf = session.sessionState.newHadoopConf()
    val path = new Path(dir)
    val all = path.getFileSystem(conf).listStatus(path).iterator.map(s => FilePaths.canonical(s.getPath.toUri))
      .filter(_.endsWith(".parquet")).toVector
    val paths = Iterator.continually(all).flatten.take(count).toVector
    val runs = (1 to 3).map { _ =>
      val t0 = System.nanoTime(); FileIdentity.current(paths, conf); (System.nanoTime() - t0) / 1e3 / count
    }.sorted
    runs(1)
  }

  private def timed[T](body: => T): (T, Long) = {
    val t0 = System.nanoTime()
    val result = body
    (result, System.nanoTime() - t0)
  }

  private def usedHeap(): Long = {
    val memory = ManagementFactory.getMemoryMXBean
    (1 to 3).foreach(_ => System.gc())
    memory.getHeapMemoryUsage.getUsed
  }
}
