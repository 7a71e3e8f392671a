package io.skipstone.sql.commands

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.StructType

import io.skipstone.sql.{ResolvedTarget, SkipstoneSqlException, Target}

/**
 * `VACUUM t [RETAIN n HOURS] [DRY RUN]`: deletes the files no retained version of a managed
 * table lists, through `io.skipstone.table.Vacuum.run`. Each row is one row of Vacuum's
 * result as JSON, so this statement does not depend on that result's columns.
 */
final case class VacuumCommand(target: Target, retainHours: Option[Double], dryRun: Boolean) extends SkipstoneCommand {
  override def statement: String = "VACUUM"
  override def schema: StructType = StructType.fromDDL("result STRING")

  override def run(session: SparkSession): Seq[Row] = {
    retainHours.filter(_ < 0).foreach { h =>
      throw new SkipstoneSqlException(s"$statement ${target.sql}: RETAIN $h HOURS must not be negative")
    }
    val root = ResolvedTarget(session, target).managedRoot(session, statement)
    VacuumCommand.vacuum(session, root, retainHours, dryRun).toJSON.collect().toSeq.map(Row(_))
  }
}

object VacuumCommand {
  val VacuumClass = "io.skipstone.table.Vacuum"

  /**
   * Vacuum is another part of Skipstone that may be missing from a build; reflection keeps this
   * statement compiling without it and says so clearly when used.
   */
  private def vacuum(session: SparkSession, root: String, retainHours: Option[Double], dryRun: Boolean): DataFrame = {
    val vacuum = try Class.forName(VacuumClass + "$") catch { // the object's class
      case _: ClassNotFoundException =>
        throw new SkipstoneSqlException(s"VACUUM: this build of Skipstone has no $VacuumClass yet")
    }
    val module = vacuum.getField("MODULE$").get(null)
    def call(name: String, args: AnyRef*): AnyRef = {
      val method = vacuum.getMethods.find(m => m.getName == name && m.getParameterCount == args.size).getOrElse(
        throw new SkipstoneSqlException(s"VACUUM: $VacuumClass has no $name with ${args.size} parameters"))
      try method.invoke(module, args: _*) catch {
        case e: java.lang.reflect.InvocationTargetException => throw e.getCause
      }
    }
    // RETAIN left out: the table's own retention (its vacuum.retentionHours property or the default)
    val hours = retainHours.map(Double.box).getOrElse(call("retentionHours", session, root))
    // never forced: a retention under the table's is refused by Vacuum with its reason
    call("run", session, root, hours, Boolean.box(dryRun), Boolean.box(false)).asInstanceOf[DataFrame]
  }
}
