package io.skipstone.sql.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types.StructType

import io.skipstone.sql.{ResolvedTarget, Target}
import io.skipstone.table.Tables

/** `DESCRIBE HISTORY t`: one row per commit of a managed table, oldest first, as Python's `history()`. */
final case class DescribeHistoryCommand(target: Target) extends SkipstoneCommand {
  override def statement: String = "DESCRIBE HISTORY"
  override def schema: StructType = DescribeHistoryCommand.Schema

  override def run(session: SparkSession): Seq[Row] = {
    val root = ResolvedTarget(session, target).managedRoot(session, statement)
    Tables.history(session, root).select(schema.fieldNames.toSeq.map(col): _*).collect().toSeq
  }
}

object DescribeHistoryCommand {
  /** The columns of [[Tables.history]]. */
  val Schema: StructType = Tables.HistorySchema
}
