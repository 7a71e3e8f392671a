package io.skipstone.sql.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType

import io.skipstone.metadata.MetadataCache
import io.skipstone.sql.{ResolvedTarget, SkipstoneSqlException, Target}

/** `DROP SKIPPING INDEX ON t`: deletes the dataset's metadata (never its data), as Python's `drop()`. */
final case class DropSkippingIndexCommand(target: Target) extends SkipstoneCommand {
  override def statement: String = "DROP SKIPPING INDEX"
  override def schema: StructType = StructType.fromDDL("dataset STRING, dropped BOOLEAN")

  override def run(session: SparkSession): Seq[Row] = {
    val dataset = ResolvedTarget(session, target)
    if (dataset.isManagedTable(session)) {
      throw new SkipstoneSqlException(s"$statement: ${target.sql} is a managed table: dropping its metadata " +
        "would drop its log too; delete the table's directory instead")
    }
    Seq(Row(dataset.root, MetadataCache.drop(session, dataset.root)))
  }
}
