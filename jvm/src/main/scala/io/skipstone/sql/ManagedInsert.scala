package io.skipstone.sql

import java.util.Locale

import org.apache.spark.sql.{Encoders, Row, SaveMode, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation
import org.apache.spark.sql.catalyst.plans.logical.{InsertIntoStatement, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.classic.{Dataset => ClassicDataset, SparkSession => ClassicSession}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.execution.datasources.{InsertIntoHadoopFsRelationCommand, LogicalRelation}
import org.apache.spark.sql.types.StructType

import io.skipstone.table.{ManagedWrites, SkipstoneSource, Tables}

/**
 * `INSERT INTO` / `INSERT OVERWRITE` a managed table (by name, or as parquet.`root`) commits a
 * version through the table transaction: rows routed by the table's layout, indexed, logged.
 * Left to Spark, the insert would drop an unlogged, unindexed file into the root.
 *
 * Runs after Spark's own post-hoc rules have turned the statement into a file write and lined
 * its columns up with the table's (by position or BY NAME, with the session's store assignment
 * casts). Only statements are claimed (a write that went through a relation, `fileIndex`
 * defined): `df.write.parquet(root)` stays another writer's file, which the table absorbs later
 * (docs/maintenance.md#other-writers).
 */
case class ManagedInsert(session: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan match {
    case insert: InsertIntoHadoopFsRelationCommand if insert.fileIndex.isDefined =>
      val root = insert.outputPath.toString
      if (!Tables.isManaged(session, root)) insert
      else {
        if (insert.staticPartitions.nonEmpty || insert.partitionColumns.nonEmpty) throw new SkipstoneSqlException(
          s"INSERT INTO $root: a Skipstone table has no partitions; insert without PARTITION (...)")
        InsertIntoManagedTable(root, insert.query, overwrite = insert.mode == SaveMode.Overwrite,
          insert.catalogTable.fold(root)(_.identifier.unquotedString))
      }
    case other => other
  }
}

/**
 * `INSERT INTO parquet.`root`` (or `skipstone.`root``), as Delta users write `delta.`path``: Spark
 * has no table by that name to insert into, so a managed table's root becomes its relation here
 * and [[ManagedInsert]] then commits the insert. Other paths keep Spark's "table not found".
 */
case class ResolveManagedInsertTarget(session: SparkSession) extends Rule[LogicalPlan] {
  private val Formats = Set("parquet", SkipstoneSource.ShortName)

  override def apply(plan: LogicalPlan): LogicalPlan = plan match {
    case insert: InsertIntoStatement => insert.table match {
      case UnresolvedRelation(Seq(format, path), _, _) if Formats.contains(format.toLowerCase(Locale.ROOT)) =>
        val root = scala.util.Try(io.skipstone.metadata.MetadataStore.qualify(session, path)).toOption
        root.filter(Tables.isManaged(session, _)).fold(plan: LogicalPlan) { r =>
          insert.copy(table = LogicalRelation(new SkipstoneSource().createRelation(session.sqlContext, Map("path" -> r))))
        }
      case _ => plan
    }
    case _ => plan
  }
}

/** The rows of `query` appended to (or replacing the rows of) the managed table at `root`. */
case class InsertIntoManagedTable(root: String, query: LogicalPlan, overwrite: Boolean, table: String)
    extends LeafRunnableCommand {
  override lazy val output: Seq[Attribute] = DataTypeUtils.toAttributes(InsertIntoManagedTable.Schema)
  override def innerChildren: Seq[LogicalPlan] = Seq(query)

  override def run(session: SparkSession): Seq[Row] = {
    val rows = new ClassicDataset[Row](session.asInstanceOf[ClassicSession], query,
      Encoders.row(DataTypeUtils.fromAttributes(query.output)))
    val written = if (overwrite) ManagedWrites.overwrite(session, root, rows, table) else ManagedWrites.append(session, root, rows, table)
    Seq(Row(written.rows, written.rows))
  }
}

object InsertIntoManagedTable {
  /** As Delta Lake's INSERT reports it. */
  val Schema: StructType = StructType.fromDDL("num_affected_rows BIGINT, num_inserted_rows BIGINT")
}
