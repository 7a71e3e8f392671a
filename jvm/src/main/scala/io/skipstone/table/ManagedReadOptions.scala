package io.skipstone.table

import java.util.Locale

import scala.util.Try

import org.apache.spark.sql.catalyst.expressions.{Cast, Literal}
import org.apache.spark.sql.catalyst.util.CaseInsensitiveMap
import org.apache.spark.sql.types.TimestampType

/** Which version of a managed table a read asks for. */
sealed trait VersionRequest

object VersionRequest {
  /** No time travel: the newest version, plus the files other writers dropped in. */
  case object Newest extends VersionRequest
  /** `versionAsOf`: exactly that version. */
  final case class AtVersion(version: Long) extends VersionRequest
  /** `timestampAsOf`: the newest version committed at or before `micros`, as the user wrote it in `asWritten`. */
  final case class AsOfTime(micros: Long, asWritten: String) extends VersionRequest
}

/**
 * The read options a managed table's root read accepts. A manifest decides which files are read,
 * so options that select files in Spark's directory listing would be silently dropped; and Spark
 * drops options it does not know. Both would give an answer other than the one asked for, so the
 * read takes an allowlist and refuses every other option by name (docs/tables.md#read-options).
 */
object ManagedReadOptions {
  val VersionAsOf = "versionAsOf"
  val TimestampAsOf = "timestampAsOf"

  /** Options honoured as plain Parquet honours them: none of them selects files. */
  private val Honoured: Seq[String] = Seq(
    VersionAsOf, TimestampAsOf,
    "mergeSchema",                              // schema inference only; a managed table has one schema
    "datetimeRebaseMode", "int96RebaseMode",    // applied by the Parquet reader to every file it reads
    "ignoreCorruptFiles", "ignoreMissingFiles") // applied by the scan to the files the manifest lists
  /** Spark's own: where the relation reads from (the root, recognised before options are checked). */
  private val SparkInternal: Set[String] = Set("path", "paths")
  /** Hadoop settings passed with the read (credentials, Parquet decryption): how bytes are fetched, not which. */
  private val HadoopPrefixes: Seq[String] = Seq("fs.", "parquet.")

  /** Options that select files in Spark's listing, which a manifest read replaces; why each is refused. */
  private val Selecting: Map[String, String] = Map(
    "pathGlobFilter" -> ("it selects files by name, and a managed table's file names are Skipstone's (blocks " +
      "of its layout), so it would read an arbitrary part of a version; filter on columns instead"),
    "modifiedBefore" -> ("it selects files by modification time, which says when a rewrite wrote a file, not when " +
      "its rows arrived; read a version with timestampAsOf instead"),
    "modifiedAfter" -> ("it selects files by modification time, which says when a rewrite wrote a file, not when " +
      "its rows arrived; read a version with timestampAsOf instead"),
    "recursiveFileLookup" -> "a managed table reads exactly the files of one version, never subdirectories",
    "basePath" -> "a managed table has no partitions to discover")

  private def canonical(key: String): String =
    (Honoured ++ Selecting.keys).find(_.equalsIgnoreCase(key)).getOrElse(key)

  def accepted: String =
    (Honoured ++ Seq("recursiveFileLookup=false", "fs.* and parquet.* Hadoop settings")).mkString(", ")

  /**
   * The version `options` ask for; refuses any option the read would not honour.
   *
   * @param sessionTimeZone the zone a `timestampAsOf` without one is read in (Spark's session zone, as Delta does)
   */
  def request(options: Map[String, String], root: String, sessionTimeZone: String): VersionRequest = {
    // errors name an option as the user spelt it, which Spark's case-insensitive map keeps aside
    val asGiven = options match {
      case c: CaseInsensitiveMap[String @unchecked] => c.originalMap
      case other => other
    }
    asGiven.toSeq.sortBy(_._1).foreach { case (key, value) => check(key, value, root) }
    val byKey = options.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> v }
    def get(name: String) = byKey.get(name.toLowerCase(Locale.ROOT))
    (get(VersionAsOf), get(TimestampAsOf)) match {
      case (Some(_), Some(_)) => throw refused(root,
        s"both $VersionAsOf and $TimestampAsOf are given: a read is of one version, give one of them")
      case (Some(v), None) => VersionRequest.AtVersion(
        Try(v.trim.toLong).toOption.filter(_ >= 0).getOrElse(throw refused(root,
          s"$VersionAsOf '$v' is not a version number (a whole number >= 0)")))
      case (None, Some(t)) => VersionRequest.AsOfTime(micros(t, sessionTimeZone).getOrElse(throw refused(root,
        s"$TimestampAsOf '$t' is not a timestamp (for instance '2026-11-26 10:00:00', read in the session's " +
          s"time zone $sessionTimeZone, or '2026-11-26T10:00:00Z')")), t)
      case (None, None) => VersionRequest.Newest
    }
  }

  /** Whether `options` ask for a version (on a relation that is no managed table, they cannot be honoured). */
  def asksForVersion(options: Map[String, String]): Option[String] =
    options.keys.find(k => k.equalsIgnoreCase(VersionAsOf) || k.equalsIgnoreCase(TimestampAsOf)).map(canonical)

  private def check(key: String, value: String, root: String): Unit = {
    val fine = Honoured.exists(_.equalsIgnoreCase(key)) || SparkInternal(key.toLowerCase(Locale.ROOT)) ||
      HadoopPrefixes.exists(key.toLowerCase(Locale.ROOT).startsWith) ||
      (key.equalsIgnoreCase("recursiveFileLookup") && value.trim.equalsIgnoreCase("false"))
    if (!fine) throw refused(root, s"read option '$key' is not honoured: " +
      Selecting.collectFirst { case (name, why) if name.equalsIgnoreCase(key) => why }
        .getOrElse("Skipstone does not know it, and an option Spark ignores must not pass silently") +
      s". A managed table read accepts: $accepted (docs/tables.md#read-options)")
  }

  private def refused(root: String, why: String) =
    new ManagedTableReadRefused(s"Skipstone managed table $root: $why")

  /** Spark's own reading of a timestamp string (a cast, in the session's zone unless the text names one). */
  private def micros(text: String, zone: String): Option[Long] =
    Try(Option(Cast(Literal(text.trim), TimestampType, Some(zone)).eval())).toOption.flatten.collect { case l: Long => l }
}
