package io.skipstone.indexing

import org.apache.spark.sql.{Column, SparkSession}

/**
 * How one metadata role of an index is computed per data file: a Spark aggregate over the
 * file's rows, or a Python function the caller runs (the JVM then takes the role from the
 * DataFrame of per-file roles the caller hands over).
 */
sealed trait RoleSource
case class SqlRole(aggregate: Column) extends RoleSource
case class PythonRole(function: String) extends RoleSource

/** An index request checked against the dataset: its stored form, columns and roles in table order. */
case class PreparedIndex(request: IndexRequest, description: String, columns: Seq[ResolvedColumn],
                         roles: Seq[(String, RoleSource)]) {
  /** The metadata table's column for a role; the position keeps names unique within a version. */
  def metadataColumn(position: Int, role: String): String = s"${request.kind}_${position}_$role"
}

/**
 * One index kind: which columns it takes, the settings it stores and how each role is computed.
 * Adding a kind is one small object registered in [[IndexKinds]].
 */
trait IndexKind {
  /** How messages show the index when the request names none, e.g. `MinMax(temp)`. */
  def describe(request: IndexRequest): String

  /**
   * Checks the request against its resolved columns (raising an error naming the index, column
   * and dataset) and returns the request as it will be stored: missing settings filled in.
   */
  def prepare(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn], dataset: String): IndexRequest

  /** The roles, in the order the metadata table keeps them. */
  def roles(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn]): Seq[(String, RoleSource)]
}

/** What most kinds share: one column, settings as numbers with defaults and range checks. */
abstract class SingleColumnKind(val displayName: String) extends IndexKind {
  protected def settings(request: IndexRequest): String = ""

  def describe(request: IndexRequest): String = {
    val extra = settings(request)
    s"$displayName(${request.columns.mkString(", ")}${if (extra.isEmpty) "" else ", " + extra})"
  }

  protected def single(request: IndexRequest): Unit =
    if (request.columns.length != 1) throw new IndexBuildError(
      s"$displayName indexes one column, got ${request.columns.length}: ${request.columns.mkString(", ")}")

  /** An integer setting, its default when absent, refused unless positive. */
  protected def positiveInt(request: IndexRequest, key: String, default: Long): Long = {
    val text = request.param(key).getOrElse(default.toString)
    text.toLongOption.filter(_ > 0).getOrElse(throw new IndexBuildError(
      s"$displayName: $key must be a positive number, got $text"))
  }

  /** A false-positive rate setting: strictly between 0 and 1. */
  protected def probability(request: IndexRequest, key: String, default: Double): Double = {
    val text = request.param(key).getOrElse(default.toString)
    text.toDoubleOption.filter(p => p > 0 && p < 1).getOrElse(throw new IndexBuildError(
      s"$displayName: $key must be between 0 and 1, got $text"))
  }
}
