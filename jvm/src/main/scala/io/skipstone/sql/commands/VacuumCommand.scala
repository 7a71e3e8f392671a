package io.skipstone.sql.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType

import io.skipstone.sql.{ResolvedTarget, SkipstoneSqlException, Target}
import io.skipstone.table.Vacuum

/**
 * `VACUUM t [RETAIN n HOURS] [DRY RUN]`: deletes the files no retained version of a managed
 * table lists ([[Vacuum.run]]), one row per path deleted (or, with DRY RUN, that would be).
 * Without RETAIN the table's own retention applies; SQL never forces a shorter one than the
 * table's: a refused retention names the table property that opts in ([[SqlHints]]).
 */
final case class VacuumCommand(target: Target, retainHours: Option[Double], dryRun: Boolean) extends SkipstoneCommand {
  override def statement: String = "VACUUM"
  override def schema: StructType = Vacuum.Schema

  override def run(session: SparkSession): Seq[Row] = {
    retainHours.filter(_ < 0).foreach { h =>
      throw new SkipstoneSqlException(s"$statement ${target.sql}: RETAIN $h HOURS must not be negative")
    }
    val root = ResolvedTarget(session, target).managedRoot(session, statement)
    val shown = target.sql + retainHours.fold("")(h => s" RETAIN $h HOURS")
    inSqlTerms(shown, target) {
      val hours = retainHours.getOrElse(Vacuum.retentionHours(session, root))
      Vacuum.run(session, root, hours, dryRun, force = false).collect().toSeq
    }
  }
}
