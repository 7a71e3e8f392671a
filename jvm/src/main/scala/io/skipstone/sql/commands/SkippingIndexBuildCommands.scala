package io.skipstone.sql.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType

import io.skipstone.sql.{IndexRequests, IndexSpec, SkipstoneSqlException, Target}

/**
 * `CREATE SKIPPING INDEX ON t (MINMAX(c), BLOOMFILTER(d) OPTIONS (fpp 0.01), ...)`. The statement
 * is checked and turned into the index build's requests (see [[IndexRequests]]) when parsed;
 * running it needs the JVM index build.
 */
final case class CreateSkippingIndexCommand(target: Target, indexes: Seq[IndexSpec]) extends SkipstoneCommand {
  override def statement: String = CreateSkippingIndexCommand.Statement
  override def schema: StructType = new StructType()

  /** The requests JSON the index build takes: `[{"kind", "columns", "params"}, ...]`. */
  val requestsJson: String = IndexRequests.json(statement, indexes)

  override def run(session: SparkSession): Seq[Row] =
    throw SkippingIndexBuild.missing(statement, target, "build(MinMax('c'), ...)")
}

object CreateSkippingIndexCommand {
  val Statement = "CREATE SKIPPING INDEX"
}

/** `REFRESH SKIPPING INDEX ON t`: index new and changed files as the last build did. */
final case class RefreshSkippingIndexCommand(target: Target) extends SkipstoneCommand {
  override def statement: String = "REFRESH SKIPPING INDEX"
  override def schema: StructType = new StructType()
  override def run(session: SparkSession): Seq[Row] = throw SkippingIndexBuild.missing(statement, target, "refresh()")
}

private object SkippingIndexBuild {
  // TODO(issue 11): call io.skipstone.indexing.IndexBuild once it is in this build.
  def missing(statement: String, target: Target, python: String): SkipstoneSqlException =
    new SkipstoneSqlException(s"$statement ON ${target.sql}: this build of Skipstone cannot build indexes from " +
      s"SQL yet (the JVM index build is not in it); from Python: Skipstone.for_path(spark, path).$python")
}
