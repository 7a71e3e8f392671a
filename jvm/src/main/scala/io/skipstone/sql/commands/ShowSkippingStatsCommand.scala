package io.skipstone.sql.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType

import io.skipstone.sql.SkippingStats

/**
 * `SHOW SKIPPING STATS`: what the session's last query that read files skipped, per dataset and
 * index. It reads no file itself, so it can be repeated and Python sees the same query.
 */
case object ShowSkippingStatsCommand extends SkipstoneCommand {
  override def statement: String = "SHOW SKIPPING STATS"
  override def schema: StructType = SkippingStats.Schema
  override def run(session: SparkSession): Seq[Row] = SkippingStats.last(session).toSeq.flatMap(SkippingStats.rows)
}
