package io.skipstone.table

import org.apache.spark.sql.{DataFrame, SQLContext, SaveMode, SparkSession}
import org.apache.spark.sql.execution.datasources.DataSource
import org.apache.spark.sql.sources.{BaseRelation, CreatableRelationProvider, DataSourceRegister, RelationProvider,
  SchemaRelationProvider}
import org.apache.spark.sql.types.{DataType, StructType}


/**
 * The `skipstone` data source: a managed table as Spark's readers and writers name a format.
 *
 * {{{
 *   df.write.format("skipstone").option("layout", "amoeba").option("columns", "ts,region").save("/data/events")
 *   df.write.format("skipstone").mode("append").save("/data/events")     // routed by the table's layout
 *   spark.read.format("skipstone").option("versionAsOf", 3).load("/data/events")
 *   CREATE TABLE events USING skipstone OPTIONS (layout 'kd') AS SELECT * FROM raw   -- or LAYOUT KD BY (a, b)
 * }}}
 *
 * A read is the Parquet relation over the table's root, which the managed-table rule pins to a
 * version of the log (read options are the table's: docs/maintenance.md#time-travel). A write
 * creates, appends to or overwrites the table through the JVM's table transaction
 * ([[ManagedWrites]]); `errorifexists` and `ignore` behave as for any Spark source.
 */
class SkipstoneSource extends DataSourceRegister with RelationProvider with SchemaRelationProvider
    with CreatableRelationProvider {

  override def shortName(): String = SkipstoneSource.ShortName

  override def createRelation(sqlContext: SQLContext, parameters: Map[String, String]): BaseRelation =
    relation(sqlContext.sparkSession, SourceOptions.root(sqlContext.sparkSession, parameters), parameters)

  // A catalog table (`CREATE TABLE ... USING skipstone`) passes the schema it recorded; Spark
  // compares it with the relation's, which is the table's own.
  override def createRelation(sqlContext: SQLContext, parameters: Map[String, String],
                              schema: StructType): BaseRelation = createRelation(sqlContext, parameters)

  override def createRelation(sqlContext: SQLContext, mode: SaveMode, parameters: Map[String, String],
                              data: DataFrame): BaseRelation = {
    val session = sqlContext.sparkSession
    val root = SourceOptions.root(session, parameters)
    val options = SourceOptions.forWrite(parameters, root)
    val exists = Tables.isManaged(session, root)
    mode match {
      case SaveMode.ErrorIfExists if exists => throw new IllegalArgumentException(
        s"$root is already a Skipstone table; write with mode 'append' or 'overwrite', or read it")
      case SaveMode.Ignore if exists => ()
      case SaveMode.Append if exists => ManagedWrites.append(session, root, data, root)
      case SaveMode.Overwrite if exists => ManagedWrites.overwrite(session, root, data, root)
      case _ => ManagedWrites.create(session, root, data, options.layout, root)
    }
    relation(session, root, parameters)
  }

  private def relation(session: SparkSession, root: String, parameters: Map[String, String]): BaseRelation = {
    val snapshot = TableLog.latest(session.sessionState.newHadoopConf(), root).getOrElse(throw new IllegalArgumentException(
      s"$root is not a Skipstone table (no log under $root/${TableLog.ContainerDir}/log); create it with " +
        "df.write.format(\"skipstone\").save(path) or CREATE TABLE ... USING skipstone AS SELECT ..."))
    val schema = DataType.fromJson(snapshot.properties("schema")).asInstanceOf[StructType]
    DataSource(session, className = "parquet", paths = Seq(root), userSpecifiedSchema = Some(schema),
      options = SourceOptions.forRead(parameters)).resolveRelation(checkFilesExist = false)
  }
}

object SkipstoneSource {
  val ShortName = "skipstone"
}
