package io.skipstone.sql.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType

import io.skipstone.sql.{SkipstoneSqlException, Target}
import io.skipstone.table.{InvalidTableSetting, TableLog, Tables}

/**
 * `ALTER TABLE t SET TBLPROPERTIES ('workloadLog.enabled' = 'false')` on a managed table:
 * commits the new values (other keys keep theirs) through the same entry as Python's
 * `set_properties`, so both meet one validator. The parser sends this statement here only when
 * `t` is a managed table; other tables keep Spark's meaning.
 */
final case class SetTablePropertiesCommand(target: Target, root: String, properties: Seq[(String, String)])
    extends SkipstoneCommand {
  override def statement: String = "ALTER TABLE ... SET TBLPROPERTIES"
  override def schema: StructType = new StructType()

  override def run(session: SparkSession): Seq[Row] = {
    if (TableLog.latestVersion(session.sessionState.newHadoopConf(), root).isEmpty)
      throw new SkipstoneSqlException(s"$statement: ${target.sql} is not a Skipstone table")
    try Tables.setProperties(session, root, properties.toMap, target.sql)
    catch { case e: InvalidTableSetting => throw new SkipstoneSqlException(s"$statement: ${e.getMessage}") }
    Nil
  }
}
