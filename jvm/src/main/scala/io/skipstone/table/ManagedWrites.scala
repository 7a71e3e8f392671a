package io.skipstone.table

import org.apache.spark.sql.{DataFrame, SparkSession}

/** How a new table is laid out: a layout name as SQL's LAYOUT names it, its columns, its block size. */
final case class LayoutRequest(name: String, columns: Option[Seq[String]], blockRows: Option[Long],
                               blockBytes: Option[Long])

/** What a write committed. */
final case class WriteOutcome(version: Long, rows: Long, filesAdded: Long)

/**
 * The table writes SQL and the `skipstone` source run: create, append, overwrite, each one
 * commit of the table transaction. `table` is how errors name the table.
 */
object ManagedWrites {
  def create(session: SparkSession, root: String, rows: DataFrame, layout: LayoutRequest, table: String): WriteOutcome =
    throw new UnsupportedOperationException("TODO")
  def append(session: SparkSession, root: String, rows: DataFrame, table: String): WriteOutcome =
    throw new UnsupportedOperationException("TODO")
  def overwrite(session: SparkSession, root: String, rows: DataFrame, table: String): WriteOutcome =
    throw new UnsupportedOperationException("TODO")
}
