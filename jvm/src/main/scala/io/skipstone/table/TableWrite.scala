package io.skipstone.table

import org.apache.spark.sql.{Column, DataFrame}
import org.json4s.JObject

import io.skipstone.indexing.IndexRequest
import io.skipstone.layout.LayoutDocument

/**
 * What one [[TableTransaction]] writes and commits, as data.
 *
 * @param operation  the log's name of the change: APPEND, OPTIMIZE, CREATE
 * @param rows       the rows of the new files, the table's columns in its order
 * @param routing    how each row finds its block, and the blocks that may receive rows
 * @param removed    the files the new version no longer lists: a rewrite writes exactly their rows
 * @param layout     the new version's layout, with each block's rows counted from the version's
 *                   files at commit; None keeps the layout the commit applies to
 * @param info       what the history shows; the transaction adds the rows and files it wrote and
 *                   its duration
 * @param indexes    (a create) the indexes the table's first skipping metadata is built for;
 *                   other writes keep the table's
 * @param rewritesRemoved whether `rows` are the rows of the `removed` files (a rewrite: checked
 *                   before the commit), or new rows that replace them (an overwrite)
 */
final case class TableWrite(
    operation: String,
    rows: DataFrame,
    routing: Routing,
    removed: Seq[DataFile],
    layout: Option[LayoutDocument],
    info: JObject,
    properties: Map[String, String] = Map.empty,
    absorbed: Set[AbsorbedFile] = Set.empty,
    indexes: Seq[IndexRequest] = Nil,
    rewritesRemoved: Boolean = true)

sealed trait Routing {
  /** The blocks this write may put rows into; a row routed elsewhere fails it. */
  def blocks: Seq[Long]
}

object Routing {
  /** Rows go where `layout` routes them (appends, absorbed files, layout changes). */
  final case class ThroughLayout(layout: LayoutDocument, blocks: Seq[Long]) extends Routing
  /** Each row's block is the long `blockOf` (a compaction: the block of the file it is read from). */
  final case class ByColumn(blockOf: Column, blocks: Seq[Long]) extends Routing

  def throughLayout(layout: LayoutDocument): ThroughLayout = ThroughLayout(layout, layout.blockIds.map(_.toLong))
}

/** What a transaction committed: the new version, the rows written and the files that hold them. */
final case class Committed(snapshot: Snapshot, rows: Long, added: Seq[DataFile])
