package io.skipstone.sql.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType
import org.json4s._
import org.json4s.jackson.JsonMethods

import io.skipstone.metadata.{AutoRefresh, MetadataStore}
import io.skipstone.sql.{ResolvedTarget, Target}

/**
 * `DESCRIBE SKIPPING INDEX ON t`: one row per index, the columns of Python's `describe()`: with
 * the id of the key each index is encrypted with and the metadata's footer key (null: none), and
 * `files_indexed` null for a session that cannot read the encrypted metadata; a partial index's
 * `where` and the automatic refresh's settings (`auto_refresh`, null when off; docs/partial-indexes.md).
 */
final case class DescribeSkippingIndexCommand(target: Target) extends SkipstoneCommand {
  override def statement: String = "DESCRIBE SKIPPING INDEX"
  override def schema: StructType = DescribeSkippingIndexCommand.Schema

  override def run(session: SparkSession): Seq[Row] = {
    implicit val formats: Formats = DefaultFormats
    val dataset = ResolvedTarget(session, target)
    val store = MetadataStore.of(session, dataset.root)
    store.current() match {
      case Some((version, tableDir, definition)) =>
        val filesIndexed = MetadataStore.filesIndexed(session.sessionState.newHadoopConf(), tableDir).map(Long.box).orNull
        val metadataDir = store.location
        val parsed = JsonMethods.parse(definition)
        // a Delta table's index is pinned to the table version it was built from
        val tableVersion = (parsed \ "read" \ "tableVersion").extractOpt[Long].map(Long.box).orNull
        val footerKey = (parsed \ "encryption" \ "footerKey").extractOpt[String].orNull
        val where = (parsed \ "where").extractOpt[String].orNull
        val autoRefresh = AutoRefresh.fromJson(parsed \ "autoRefresh").map(_.describe).orNull
        (parsed \ "indexes").children.map { ix =>
          Row((ix \ "name").extract[String], (ix \ "kind").extract[String], (ix \ "columns").extract[Seq[String]],
            version, filesIndexed, dataset.root, metadataDir, tableVersion, (ix \ "key").extractOpt[String].orNull, footerKey,
            where, autoRefresh)
        }
      case _ => Nil
    }
  }
}

object DescribeSkippingIndexCommand {
  val Schema: StructType = StructType.fromDDL("index STRING, kind STRING, columns ARRAY<STRING>, version BIGINT, " +
    "files_indexed BIGINT, dataset STRING, metadata_dir STRING, table_version BIGINT, key STRING, footer_key STRING, " +
    "where STRING, auto_refresh STRING")
}
