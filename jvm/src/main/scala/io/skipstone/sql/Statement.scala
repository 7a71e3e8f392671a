package io.skipstone.sql

/** What a Skipstone SQL statement names: a catalog table or a path read by a file format. */
sealed trait Target {
  /** As a user would write it back, for messages. */
  def sql: String
}

/** `db.events`, `spark_catalog.db.events`, `` `my table` ``. */
final case class TableName(parts: Seq[String]) extends Target {
  def sql: String = parts.map(Target.quote).mkString(".")
}

/** `` parquet.`/data/events` ``: Spark's own syntax for querying files by path. */
final case class PathTarget(format: String, path: String) extends Target {
  def sql: String = s"$format.`${path.replace("`", "``")}`"
}

object Target {
  /**
   * Formats whose `format.`path`` names files, as Spark's run-SQL-on-files does; `delta.`path``
   * names a Delta Lake table's files (its live ones), as Delta's own SQL does.
   */
  val FileFormats: Set[String] = Set("parquet", "orc", "json", "csv", "text", "avro", "delta")

  def quote(part: String): String =
    if (part.matches("[A-Za-z_][A-Za-z0-9_]*")) part else s"`${part.replace("`", "``")}`"

  /** Two parts whose first is a file format name are a path, as in `SELECT * FROM parquet.`/p``. */
  def of(parts: Seq[String]): Target = parts match {
    case Seq(format, path) if FileFormats.contains(format.toLowerCase) => PathTarget(format.toLowerCase, path)
    case _ => TableName(parts)
  }
}

/** One index of `CREATE SKIPPING INDEX`: `BLOOMFILTER(c) OPTIONS (fpp 0.01) [ENCRYPTED WITH KEY 'k']`. */
final case class IndexSpec(kind: String, columns: Seq[String], options: Seq[(String, String)], key: Option[String] = None)

/** `LAYOUT ZORDER BY (a, b)` of `OPTIMIZE`. */
final case class LayoutSpec(name: String, columns: Seq[String])

/** The statements Skipstone's parser recognizes; everything else goes to Spark's parser. */
sealed trait SkipstoneStatement

/**
 * `CREATE SKIPPING INDEX ON t (...) [WHERE p] [WITH FOOTER KEY 'f'] [WITH (auto_refresh = true, ...)]
 * [STORED IN ...]`: `where` is the predicate's text as written (Spark parses it), `options` the
 * `WITH (...)` pairs, `store` the metadata store as Python's `metadata_store=` names it.
 */
final case class CreateSkippingIndex(target: Target, indexes: Seq[IndexSpec], footerKey: Option[String] = None,
                                     where: Option[String] = None, options: Seq[(String, String)] = Nil,
                                     store: Option[String] = None) extends SkipstoneStatement
final case class RefreshSkippingIndex(target: Target) extends SkipstoneStatement
final case class DescribeSkippingIndex(target: Target) extends SkipstoneStatement
final case class DropSkippingIndex(target: Target) extends SkipstoneStatement
final case class DescribeSkippingAdvice(target: Target) extends SkipstoneStatement
final case class OptimizeTable(target: Target, layout: Option[LayoutSpec]) extends SkipstoneStatement
final case class VacuumTable(target: Target, retainHours: Option[Double], dryRun: Boolean) extends SkipstoneStatement
final case class DescribeHistory(target: Target) extends SkipstoneStatement
final case class DescribeDetail(target: Target) extends SkipstoneStatement
final case class SetTableProperties(target: Target, properties: Seq[(String, String)]) extends SkipstoneStatement
case object ShowSkippingStats extends SkipstoneStatement
