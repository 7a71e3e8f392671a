package io.skipstone.sql.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import io.skipstone.sql.{SkipstoneSqlException, Target}
import io.skipstone.table.{TableLog, Tables}

/**
 * `ALTER TABLE t SET TBLPROPERTIES ('workloadLog.enabled' = 'false')` on a managed table:
 * commits the new values (other keys keep theirs), as Python's `set_properties`. The parser
 * sends this statement here only when `t` is a managed table; other tables keep Spark's meaning.
 */
final case class SetTablePropertiesCommand(target: Target, root: String, properties: Seq[(String, String)])
    extends SkipstoneCommand {
  override def statement: String = "ALTER TABLE ... SET TBLPROPERTIES"
  override def schema: StructType = new StructType()

  override def run(session: SparkSession): Seq[Row] = {
    properties.map(_._1).find(SetTablePropertiesCommand.reserved).foreach { key =>
      throw new SkipstoneSqlException(s"$statement: '$key' of ${target.sql} is written by Skipstone itself, " +
        "not settable (docs/table-format.md lists the settings)")
    }
    val values = properties.toMap
    val readVersion = TableLog.latestVersion(session.sessionState.newHadoopConf(), root).getOrElse(
      throw new SkipstoneSqlException(s"$statement: ${target.sql} is not a Skipstone table"))
    val change = ("operation" -> "SET PROPERTIES") ~ ("added" -> List.empty[String]) ~
      ("properties" -> values) ~ ("commitInfo" -> ("properties" -> values))
    Tables.commit(session, root, readVersion, JsonMethods.compact(JsonMethods.render(change)))
    Nil
  }
}

object SetTablePropertiesCommand {
  /** Properties the table's writers own: changing them by hand would corrupt the table. */
  def reserved(key: String): Boolean = {
    val k = key.toLowerCase
    k == "format" || k == "schema" || k.startsWith("layout.")
  }
}
