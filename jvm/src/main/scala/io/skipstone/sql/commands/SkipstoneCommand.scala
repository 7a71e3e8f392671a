package io.skipstone.sql.commands

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.StructType

/** A Skipstone statement run on the driver, with the output schema users query. */
trait SkipstoneCommand extends LeafRunnableCommand {
  /** The statement's name for messages, e.g. `DESCRIBE SKIPPING INDEX`. */
  def statement: String
  def schema: StructType
  // A val: the output's attribute ids must stay the same for every call.
  override lazy val output: Seq[Attribute] = DataTypeUtils.toAttributes(schema)
}
