package io.skipstone.table

import java.util.Locale

import org.apache.spark.sql.SparkSession


/**
 * The options of the `skipstone` source. Writing a new table takes its layout: `layout`
 * (a name of [[io.skipstone.layout.builders.BuiltLayouts]]; default amoeba), `columns` (comma separated; default every
 * column a layout can order), `blockRows` or `blockBytes`. A catalog table keeps the options it
 * was created with and passes them to every read, so reads ignore them; any other option of a
 * write is refused by name, never silently dropped.
 */
object SourceOptions {
  val Layout = "layout"
  val Columns = "columns"
  val BlockRows = "blockrows"
  val BlockBytes = "blockbytes"
  private val WriteOnly = Set(Layout, Columns, BlockRows, BlockBytes)
  // what Spark itself adds to a source's options
  private val SparkAdded = Set("path", "paths", "__partition_columns")

  final case class WriteOptions(layout: LayoutRequest)

  def root(session: SparkSession, parameters: Map[String, String]): String = {
    val path = parameters.find(_._1.toLowerCase(Locale.ROOT) == "path").map(_._2).getOrElse(
      throw new IllegalArgumentException("the skipstone source needs a path: .save(path), .load(path), or a " +
        "catalog table's LOCATION"))
    val p = new org.apache.hadoop.fs.Path(path)
    p.getFileSystem(session.sessionState.newHadoopConf()).makeQualified(p).toString
  }

  def forWrite(parameters: Map[String, String], root: String): WriteOptions = {
    val lower = parameters.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> v }
    val unknown = lower.keySet -- WriteOnly -- SparkAdded
    if (unknown.nonEmpty) throw new IllegalArgumentException(
      s"writing Skipstone table $root: unknown option ${unknown.toSeq.sorted.map(k => s"'$k'").mkString(", ")} " +
        "(the source takes layout, columns, blockRows, blockBytes; table properties are set with SQL's " +
        "ALTER TABLE ... SET TBLPROPERTIES or Python's t.set_properties)")
    def long(key: String, shown: String) = lower.get(key).map { v =>
      v.trim.toLongOption.filter(_ > 0).getOrElse(throw new IllegalArgumentException(
        s"writing Skipstone table $root: option $shown must be a positive whole number, got '$v'"))
    }
    val columns = lower.get(Columns).map(_.split(",").map(_.trim).filter(_.nonEmpty).toSeq).filter(_.nonEmpty)
    WriteOptions(LayoutRequest(lower.getOrElse(Layout, "amoeba").trim.toLowerCase(Locale.ROOT), columns,
      long(BlockRows, "blockRows"), long(BlockBytes, "blockBytes")))
  }

  /** The options a read passes to Parquet: every one but the write-only ones. */
  def forRead(parameters: Map[String, String]): Map[String, String] =
    parameters.filter { case (k, _) => !WriteOnly.contains(k.toLowerCase(Locale.ROOT)) && k.toLowerCase(Locale.ROOT) != "path" }
}
