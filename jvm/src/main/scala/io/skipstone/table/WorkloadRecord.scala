package io.skipstone.table

import org.json4s.JsonAST.JValue
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

/**
 * One query's scan of one managed table, as the workload log keeps it (one JSON line).
 *
 * @param predicate the filter in `skipstone.layout.predicates` JSON, None when it constrains nothing
 * @param version   the table version the query was pinned to
 * @param readShare the share of the table's bytes in the columns the scan read ([[ReadShare]]); None: unknown
 */
case class WorkloadRecord(
    root: String,
    timeMillis: Long,
    version: Long,
    predicate: Option[JValue],
    filesRead: Long,
    filesTotal: Long,
    bytesRead: Long,
    bytesTotal: Long,
    durationMillis: Double,
    application: String,
    readShare: Option[Double] = None) {

  /** The predicate is kept as JSON text, so the log's schema does not depend on the queries. */
  def toJsonLine: String = JsonMethods.compact(JsonMethods.render(
    ("time" -> timeMillis) ~ ("version" -> version) ~
      ("predicate" -> predicate.map(p => JsonMethods.compact(JsonMethods.render(p)))) ~
      ("files_read" -> filesRead) ~ ("files_total" -> filesTotal) ~ ("bytes_read" -> bytesRead) ~
      ("bytes_total" -> bytesTotal) ~ ("duration_ms" -> durationMillis) ~ ("application" -> application) ~
      ("read_share" -> readShare)))
}

object WorkloadRecord {
  /** The schema of the log's JSON lines, as a DDL string for Spark's JSON reader. */
  val Schema: String = "time LONG, version LONG, predicate STRING, files_read LONG, files_total LONG, " +
    "bytes_read LONG, bytes_total LONG, duration_ms DOUBLE, application STRING, read_share DOUBLE"
}
