package io.skipstone.bench

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.{FileStatus, Path}

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.Filter
import org.apache.spark.sql.classic.{Dataset => ClassicDataset}
import org.apache.spark.sql.execution.datasources.{FileStatusWithMetadata, PartitionDirectory}
import org.apache.spark.sql.catalyst.InternalRow
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import io.skipstone.metadata.{LoadedMetadata, MetadataCache}
import io.skipstone.query.{FileSkipper, QueryRead, SkipVerification}

/**
 * Measures the driver-side work the wrapper adds to a query: compiling the filter into a
 * clause and evaluating it over every file's metadata, as if each indexed file were listed.
 * Used by the benchmarks with synthetic metadata of up to 100,000 files. Built into the
 * benchmarks' own jar (jvm/build_jar.py --bench), never into the one users get.
 */
object PlanningBenchmark {
  /** `filtered`: a DataFrame over the dataset with the filter to evaluate. JSON result. */
  def run(session: SparkSession, datasetRoot: String, filtered: DataFrame, runs: Int): String = {
    val plan = filtered.asInstanceOf[ClassicDataset[_]].queryExecution.optimizedPlan
    val filter = plan.collectFirst { case f: Filter => f }.getOrElse(
      throw new IllegalArgumentException("the DataFrame has no filter to evaluate"))
    val metadata = MetadataCache.current(session, datasetRoot).getOrElse(
      throw new IllegalArgumentException(s"$datasetRoot has no Skipstone metadata"))
    val listing = Seq(PartitionDirectory(InternalRow.empty, listingOf(metadata)))
    val read = QueryRead(filter.child.schema, metadata.definition.context.get, session.sessionState.conf.resolver)
    // Synthetic files do not exist: take the metadata's word for their identity.
    val timings = (1 to runs).map { _ =>
      val start = System.nanoTime()
      val (_, stats) = new FileSkipper(metadata, filter.condition, read, SkipVerification.Trusted).prune(listing)
      (System.nanoTime() - start, stats)
    }
    val millis = timings.map(_._1 / 1e6).sorted
    val stats = timings.last._2
    JsonMethods.compact(JsonMethods.render(
      ("files" -> stats.filesTotal) ~ ("skipped" -> stats.filesSkipped) ~
        ("median_ms" -> millis(millis.size / 2)) ~ ("min_ms" -> millis.head) ~ ("max_ms" -> millis.last)))
  }

  /**
   * The files pruning keeps of a listing of every indexed file, in the version's order or, with
   * a `shuffleSeed`, shuffled (listings need not come in the order files were indexed).
   */
  def keptFiles(session: SparkSession, datasetRoot: String, filtered: DataFrame, shuffleSeed: Long): java.util.List[String] = {
    val plan = filtered.asInstanceOf[ClassicDataset[_]].queryExecution.optimizedPlan
    val filter = plan.collectFirst { case f: Filter => f }.getOrElse(
      throw new IllegalArgumentException("the DataFrame has no filter to evaluate"))
    val metadata = MetadataCache.current(session, datasetRoot).getOrElse(
      throw new IllegalArgumentException(s"$datasetRoot has no Skipstone metadata"))
    val files = listingOf(metadata)
    val listing = if (shuffleSeed < 0) files else new scala.util.Random(shuffleSeed).shuffle(files)
    val read = QueryRead(filter.child.schema, metadata.definition.context.get, session.sessionState.conf.resolver)
    val (kept, _) = new FileSkipper(metadata, filter.condition, read, SkipVerification.Trusted)
      .prune(Seq(PartitionDirectory(InternalRow.empty, listing)))
    kept.flatMap(_.files).map(_.getPath.toString).asJava
  }

  /**
   * What listing a managed table's version costs a query, from its manifest: the first query
   * on a version, then each later one (a new index on the same cached snapshot). Synthetic:
   * `files` data files under `root`, none of which need exist. JSON result.
   */
  def manifestListing(root: String, files: Int, runs: Int): String = {
    import io.skipstone.table.{DataFile, ManifestFileIndex, Snapshot}
    def snapshot() = Snapshot.Empty.copy(version = 1L,
      files = (0 until files).map(i => DataFile(f"part-$i%08d-0123456789abcdef.parquet", 1L << 20, 1700000000000L, i, 1000L)))
    def list(s: Snapshot): Long = {
      val start = System.nanoTime()
      val listed = new ManifestFileIndex(root, s).listFiles(Nil, Nil).map(_.files.size).sum
      require(listed == files, s"listed $listed of $files files")
      System.nanoTime() - start
    }
    val timings = (1 to runs).map { _ => val s = snapshot(); (list(s), list(s)) }
    def median(xs: Seq[Long]): Double = xs.sorted.apply(xs.size / 2) / 1e6
    JsonMethods.compact(JsonMethods.render(("files" -> files) ~
      ("first_query_ms" -> median(timings.map(_._1))) ~ ("later_query_ms" -> median(timings.map(_._2)))))
  }

  /** Every file of the version as Spark would list it (synthetic files do not exist). */
  def listingOf(metadata: LoadedMetadata): Seq[FileStatusWithMetadata] = (0 until metadata.fileCount).map { i =>
    val recorded = metadata.identity(i)
    FileStatusWithMetadata(new FileStatus(recorded.size, false, 1, 0L, recorded.modificationTime,
      new Path(new java.net.URI(metadata.path(i)))), Map.empty)
  }
}
