package io.skipstone.table

import scala.util.Try

/**
 * The maintenance settings the JVM's optimize steps read from a table's properties: which
 * strategies an iteration asks, in which order, and how much one iteration may read. The
 * defaults and the checks are those of Python's `skipstone.table.maintenance_config` (which
 * also validates `set_properties`); a test keeps the two in step.
 */
final case class MaintenanceSettings(strategies: Seq[String], batchBytes: Long, unindexedFromMillis: Long)

object MaintenanceSettings {
  val Strategies: Seq[String] = Seq("unindexed", "compaction", "layout")

  val Defaults: Map[String, String] = Map(
    "optimize.strategies" -> Strategies.mkString(","),
    "optimize.batchBytes" -> (1L << 30).toString,
    "optimize.unindexedFromMillis" -> "0",
    "optimize.auto" -> "false",
    "vacuum.retentionHours" -> "168",
    "vacuum.retentionCheck" -> "true")

  /** The settings of `properties` (defaults for those unset), or an error naming the property at fault. */
  def of(properties: Map[String, String], table: String): MaintenanceSettings = {
    val p = Defaults ++ properties
    def number(key: String, minimum: Long): Long =
      Try(p(key).trim.toLong).toOption.filter(_ >= minimum).getOrElse(throw new IllegalArgumentException(
        s"table $table: property $key must be a whole number >= $minimum, got '${p(key)}'"))
    val strategies = p("optimize.strategies").split(",").map(_.trim).filter(_.nonEmpty).toSeq
    val unknown = strategies.filterNot(Strategies.contains)
    if (unknown.nonEmpty) throw new IllegalArgumentException(
      s"table $table: property optimize.strategies names unknown strategies ${unknown.mkString(", ")}; " +
        s"known: ${Strategies.mkString(", ")}")
    MaintenanceSettings(strategies, number("optimize.batchBytes", 1), number("optimize.unindexedFromMillis", 0))
  }

  /** Defaults for Python's check that both languages agree. */
  def defaultsJson: String = org.json4s.jackson.Serialization.write(Defaults)(org.json4s.DefaultFormats)
}
