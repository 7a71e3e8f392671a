package io.skipstone.table

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.json4s._
import org.json4s.JsonDSL._

import io.skipstone.layout.{Leaf, TreeLayout}
import io.skipstone.layout.builders.{LayoutBuilders, LayoutSample}

/** How a new table is laid out: a layout name as SQL's LAYOUT names it, its columns, its block size. */
final case class LayoutRequest(name: String, columns: Option[Seq[String]], blockRows: Option[Long],
                               blockBytes: Option[Long]) {
  /** The spec JSON the name stands for (as Python's spec of that kind writes it). */
  def spec: JValue = LayoutBuilders.specFor(name, columns.getOrElse(Nil), blockRows, blockBytes)
}

/** What a write committed. */
final case class WriteOutcome(version: Long, rows: Long, filesAdded: Long)

/**
 * The table writes of SQL and the `skipstone` source, each one commit of the table
 * transaction: create ([[NewTable]]), append ([[Append]]), overwrite. `table` is how errors
 * name the table. A session without Python cannot write a table whose indexes need Python (a
 * GeoBox's boxes): the write is refused before anything is written, saying so.
 */
object ManagedWrites {
  def create(session: SparkSession, root: String, rows: DataFrame, layout: LayoutRequest, table: String): WriteOutcome = {
    val created = NewTable.create(session, root, rows, layout.spec, Nil, None, None, None, table)
    WriteOutcome(created.version, created.totalRows, created.files.size)
  }

  def append(session: SparkSession, root: String, rows: DataFrame, table: String): WriteOutcome = {
    val appended = Append.run(session, root, rows)
    WriteOutcome(appended.version, appended.rows, appended.filesAdded)
  }

  /**
   * Replaces every row of the table with `rows` (the table's columns and types) in one version,
   * laid out afresh by the table's layout spec on a sample of the new rows (kept when only
   * Python builds the spec: then the new rows go through the current layout). Earlier versions
   * stay readable until vacuumed. Conflicts with any write committed meanwhile.
   */
  def overwrite(session: SparkSession, root: String, rows: DataFrame, table: String): WriteOutcome = {
    val txn = TableTransaction.latest(session, root, "overwrite", s"overwrite of $table")
    val conformed = AppendColumns.conformed(rows, txn.schema, table)
    val spec = org.json4s.jackson.JsonMethods.parse(txn.base.properties("layout.spec"))
    val blockRows = txn.base.properties("layout.blockRows").toDouble
    val current = txn.layout
    val total = conformed.count()
    val (layout, sample) =
      if (!LayoutBuilders.builds(spec)) (current, None)
      else {
        val columns = current.schema.map(_.name)
        val drawn = LayoutSample.draw(conformed, columns, total,
          math.min(total, math.max(NewTable.MinSampleRows.toLong, 200L * math.ceil(total / blockRows).toLong)).toInt, 0L)
        val built = if (total == 0 || drawn.rows == 0) TreeLayout(drawn.schema, Leaf(0, 0.0))
          else LayoutBuilders.build(spec, drawn, blockRows, total.toDouble)
        (built, Some(drawn))
      }
    val samplePath = sample.map(TableSample.write(session, root, _))
    val info = ("strategy" -> "overwrite") ~ ("reason" -> s"every row replaced (${txn.base.files.size} files)")
    try {
      val committed = txn.commit(TableWrite("OVERWRITE", conformed, Routing.throughLayout(layout), txn.base.files,
        Some(layout), info, properties = samplePath.fold(Map.empty[String, String])(p => Map("layout.sample" -> p)),
        rewritesRemoved = false), None)
      WriteOutcome(committed.snapshot.version, committed.rows, committed.added.size)
    } catch {
      case e: InjectedFailure => throw e
      case e: Throwable =>
        samplePath.foreach(TableSample.delete(session, root, _))
        throw e
    }
  }
}
