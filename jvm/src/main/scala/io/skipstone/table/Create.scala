package io.skipstone.table

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.StructType
import org.json4s._
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import io.skipstone.indexing.IndexRequest
import io.skipstone.layout.LayoutDocument

/**
 * Creates a managed table: every row routed through a layout (built by Python's builders on a
 * sample) into one file per block, skipping metadata built for the requested indexes, version 1
 * committed with the table's properties. A [[TableTransaction]] on version 0 with failpoints
 * `create.afterWrite` (the files and the schema summary written), `.afterMetadata`,
 * `.afterCommit`; it loses to a concurrent create of the same table.
 *
 * {{{
 *   Create.run(spark, "file:/data/sales", rows, kdLayout, Map("schema" -> ..., "layout.blockRows" -> "1e6", ...),
 *     Seq(IndexRequest("minmax", Seq("amount"), Map.empty)))
 * }}}
 */
object Create {
  /**
   * @param properties the table's properties: at least `schema` (the rows') and `layout.blockRows`
   */
  def run(session: SparkSession, root: String, rows: DataFrame, layout: LayoutDocument, properties: Map[String, String],
          indexes: Seq[IndexRequest], roles: Option[PythonRoles] = None): Snapshot = {
    val txn = TableTransaction.open(session, root, 0, "create", s"create of $root")
    writeSchemaSummary(session, root, TableTransaction.schemaOf(properties))
    val info = ("blocks" -> layout.blockIds.size) ~ ("blockRows" -> properties("layout.blockRows").toDouble)
    txn.commit(TableWrite("CREATE", rows, Routing.throughLayout(layout), Nil, Some(layout), info, properties,
      indexes = indexes), roles).snapshot
  }

  /**
   * [[run]] for Python: the layout as its document, `properties` a JSON object, `indexes` the
   * build requests' JSON list; the new log entry as JSON. `roles` may be null.
   */
  def runFromPython(session: SparkSession, root: String, rows: DataFrame, layoutJson: String, propertiesJson: String,
                    indexesJson: String, roles: PythonRoles): String = {
    implicit val formats: Formats = DefaultFormats
    SnapshotJson.write(run(session, root, rows, LayoutDocument.parse(layoutJson),
      JsonMethods.parse(propertiesJson).extract[Map[String, String]],
      if (JsonMethods.parse(indexesJson).children.isEmpty) Nil else IndexRequest.parseAll(indexesJson), Option(roles)))
  }

  /**
   * `<root>/_common_metadata`: a Parquet file of no rows with the table's schema, written by
   * Spark. Spark infers a directory's schema from it before any data file's footer and never
   * reads it as data, so a reader that gives no schema depends on no data file (which a vacuum
   * may delete). Replaces one a create that died before committing left.
   */
  private def writeSchemaSummary(session: SparkSession, root: String, schema: StructType): Unit = {
    val staging = TableTransaction.stagingDir(root, "create-schema-summary")
    val fs = staging.getFileSystem(session.sessionState.newHadoopConf())
    try {
      session.createDataFrame(java.util.Collections.emptyList[Row](), schema).coalesce(1).write.parquet(staging.toString)
      val parts = fs.listStatus(staging).map(_.getPath).filter(_.getName.startsWith("part-"))
      if (parts.length != 1) throw new IllegalStateException(
        s"writing the schema summary of $root gave ${parts.length} files, not one")
      val target = new Path(root, "_common_metadata")
      fs.delete(target, false)
      if (!fs.rename(parts.head, target)) throw new IllegalStateException(s"could not move the schema summary of $root into place")
    } finally fs.delete(staging, true)
  }
}
