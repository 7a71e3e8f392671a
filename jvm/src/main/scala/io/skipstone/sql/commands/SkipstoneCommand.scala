package io.skipstone.sql.commands

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.StructType

import io.skipstone.sql.{SkipstoneSqlException, SqlHints, Target}
import io.skipstone.table.Hinted

/** A Skipstone statement run on the driver, with the output schema users query. */
trait SkipstoneCommand extends LeafRunnableCommand {
  /** The statement's name for messages, e.g. `DESCRIBE SKIPPING INDEX`. */
  def statement: String
  def schema: StructType
  // A val: the output's attribute ids must stay the same for every call.
  override lazy val output: Seq[Attribute] = DataTypeUtils.toAttributes(schema)

  /**
   * Runs `body`; an error with a [[io.skipstone.table.Hint]] leaves named by the statement and
   * its target, the remedy in SQL's words (the JVM's table operations leave the wording to the
   * interface: SQL has no `force=True`).
   */
  protected def inSqlTerms[T](shown: String, target: Target)(body: => T): T =
    try body catch {
      case e: Exception if Hinted.find(e).isDefined =>
        val (error, hint) = Hinted.find(e).get
        throw new SkipstoneSqlException(s"$statement $shown: ${error.getMessage} ${SqlHints.render(hint, target.sql)}".trim)
    }
}
