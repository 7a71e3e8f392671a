package io.skipstone.sql.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType

import io.skipstone.sql.{ResolvedTarget, Target}
import io.skipstone.table.TableDetail

/** `DESCRIBE DETAIL t`: one row about a managed table ([[TableDetail]]), as Delta Lake's. */
final case class DescribeDetailCommand(target: Target) extends SkipstoneCommand {
  override def statement: String = "DESCRIBE DETAIL"
  override def schema: StructType = TableDetail.Schema

  override def run(session: SparkSession): Seq[Row] = {
    val resolved = ResolvedTarget(session, target)
    Seq(TableDetail.row(session, resolved.managedRoot(session, statement), resolved.table))
  }
}
