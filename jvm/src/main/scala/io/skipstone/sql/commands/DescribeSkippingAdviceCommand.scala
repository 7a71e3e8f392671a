package io.skipstone.sql.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType
import org.json4s._
import org.json4s.jackson.JsonMethods

import io.skipstone.sql.{ResolvedTarget, SkipstoneSqlException, Target}
import io.skipstone.table.PythonOptimizer

/**
 * `DESCRIBE SKIPPING ADVICE ON t`: per column a managed table's logged queries filter on, the
 * indexes covering it and which to build, as Python's `t.advise()`. The advice is Python's (the
 * rules in `skipstone.indexes.advice`), reached through the session's registered Python driver;
 * a session without one says so and names the Python call.
 */
final case class DescribeSkippingAdviceCommand(target: Target) extends SkipstoneCommand {
  override def statement: String = "DESCRIBE SKIPPING ADVICE"
  override def schema: StructType = DescribeSkippingAdviceCommand.Schema

  override def run(session: SparkSession): Seq[Row] = {
    implicit val formats: Formats = DefaultFormats
    val root = ResolvedTarget(session, target).managedRoot(session, statement)
    val python = PythonOptimizer.current.getOrElse(throw new SkipstoneSqlException(s"$statement ON ${target.sql}: " +
      "the advice is computed by Skipstone's Python side, and this session has no Python driver; run " +
      s"Skipstone.for_path(spark, '$root').advise() in a pyspark session"))
    JsonMethods.parse(python.advise(session, root)) match {
      case JArray(rows) => rows.map { r =>
        Row((r \ "column").extract[String], (r \ "queries").extract[Long], (r \ "range_queries").extract[Long],
          (r \ "equality_queries").extract[Long], (r \ "files_read_share").extract[Double],
          (r \ "indexes").extract[Seq[String]], (r \ "suggestion").extractOpt[String].orNull, (r \ "reason").extract[String])
      }
      case error => throw new SkipstoneSqlException(s"$statement ON ${target.sql}: ${(error \ "error").values}")
    }
  }
}

object DescribeSkippingAdviceCommand {
  /** The columns of Python's `t.advise()` (`skipstone.table.advice.SCHEMA`). */
  val Schema: StructType = StructType.fromDDL("column STRING, queries BIGINT, range_queries BIGINT, " +
    "equality_queries BIGINT, files_read_share DOUBLE, indexes ARRAY<STRING>, suggestion STRING, reason STRING")
}
