package io.skipstone.table

import org.apache.hadoop.fs.Path
import org.json4s.{DefaultFormats, Formats}
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import org.apache.spark.sql.{DataFrame, SparkSession}

import io.skipstone.layout.{LayoutDocument, LayoutRouting}

/**
 * Rows routed through a layout and written into one file per block: [[LayoutRouting.withBlock]]
 * then [[BlockFiles.writeRouted]]. What Python's `skipstone.table.writer.write_blocks` calls, so
 * that routing exists once, in the JVM.
 *
 * {{{
 *   RoutedWrite.write(spark, rows, layoutJson, "[0, 1, 2]", "file:/t/_skipstone/staging/x", "file:/t", 2000)
 *   // [{"path": "file:/t/b0-part-00000-....parquet", "name": "b0-part-...", "size": 812, "modificationTime": ..., "block": 0}, ...]
 * }}}
 */
object RoutedWrite {
  private implicit val formats: Formats = DefaultFormats
  private val BlockColumn = "__skipstone_block"

  /**
   * Writes `rows` into the blocks `blocks` of the layout document `layoutJson`, several files
   * for a block of more than `maxRowsPerFile` rows, through `staging` (a fresh directory this
   * writer alone owns) into `root`. A row the layout routes to a block not in `blocks` fails the
   * write before anything is committed: the caller's layout change would move it into a block
   * that keeps its files.
   *
   * @param blocksJson the block ids to write, a JSON array of integers
   * @return the files written, a JSON array of objects with `path` (the canonical URI), `name`,
   *         `size`, `modificationTime` and `block`
   */
  def write(session: SparkSession, rows: DataFrame, layoutJson: String, blocksJson: String, staging: String,
            root: String, maxRowsPerFile: Long): String = {
    val layout = LayoutDocument.parse(layoutJson)
    val blocks = JsonMethods.parse(blocksJson).extract[Seq[Long]]
    val routed = LayoutRouting.withBlock(rows, layout, BlockColumn)
    val written = BlockFiles.writeRouted(session, routed, BlockColumn, blocks, new Path(staging), root, maxRowsPerFile)
    JsonMethods.compact(JsonMethods.render(written.map { w =>
      ("path" -> w.path) ~ ("name" -> w.name) ~ ("size" -> w.identity.size) ~
        ("modificationTime" -> w.identity.modificationTime) ~ ("block" -> w.block)
    }))
  }
}
