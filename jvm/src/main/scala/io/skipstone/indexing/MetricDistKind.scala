package io.skipstone.indexing

import scala.collection.immutable.ListMap

import org.apache.spark.sql.SparkSession

import io.skipstone.indexing.RuleText.{Role, Rule}

/**
 * MetricDist: per file the smallest and largest distance of a column's values to an origin,
 * which bounds by the triangle inequality the distance of every value to a query point.
 * Params: `metric.udf` (the UDF queries call), `metric.sql` (the same distance in SQL over
 * `{a}`, `{b}`), `metric.tolerance` (relative floating-point slack, 0 for exact metrics) and
 * `origin` (SQL text of a constant).
 */
object MetricDistKind extends RuleKind {
  private val Settings = Seq("metric.udf", "metric.sql", "metric.tolerance", "origin")

  override def describe(request: IndexRequest): String =
    s"MetricDist(${request.columns.mkString(", ")}, ${request.param("metric.udf").getOrElse("")}, ${request.param("origin").getOrElse("")})"

  override def prepare(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn],
                       dataset: String): IndexRequest = {
    val description = IndexKinds.describe(request)
    val missing = Settings.filterNot(k => k == "metric.tolerance" || request.params.contains(k))
    if (missing.nonEmpty) throw new IndexBuildError(s"$description needs params ${missing.mkString(", ")}")
    val tolerance = request.param("metric.tolerance").getOrElse("0.0")
    if (!tolerance.toDoubleOption.exists(t => t >= 0)) throw new IndexBuildError(
      s"$description: metric.tolerance must be a number >= 0, got $tolerance")
    val settings = ListMap("metric.udf" -> request.params("metric.udf"), "metric.sql" -> request.params("metric.sql"),
      "metric.tolerance" -> tolerance, "origin" -> request.params("origin"))
    val definitions = if (RuleText.hasDefinitions(request.params)) request.params.filter { case (k, _) => !settings.contains(k) }
      else RuleText.params(roles(settings), rules(settings))
    RuleKind.checked(session, request.copy(params = settings ++ definitions), description)
  }

  private def distance(settings: Map[String, String], a: String, b: String): String =
    s"CAST(${settings("metric.sql").replace("{a}", a).replace("{b}", b)} AS DOUBLE)"

  private def roles(settings: Map[String, String]): Seq[Role] = {
    val d = distance(settings, "{col}", settings("origin"))
    Seq(Role("lo", "double", Some(s"min(nanvl($d, CAST(NULL AS DOUBLE)))")),
      Role("hi", "double", Some(s"max(nanvl($d, CAST(NULL AS DOUBLE)))")),
      Role("nans", "long", Some(s"count_if(isnan($d))")))
  }

  private def rules(settings: Map[String, String]): Seq[Rule] = {
    val udf = settings("metric.udf")
    val dq = distance(settings, "{q}", settings("origin"))
    val tolerance = settings("metric.tolerance")
    // Floating-point errors of the UDF, of the SQL and of the bounds' own arithmetic are
    // relative: a few ulps of the largest quantity involved, so the slack scales with them.
    val slack = if (tolerance.toDouble == 0) "0" else s"$tolerance * (abs({lo}) + abs({hi}) + abs($dq) + abs({r}))"
    val low = s"greatest({lo} - $dq, $dq - {hi})" // no value is nearer q than this
    val high = s"({hi} + $dq + $slack)" // nor farther than this
    val near = s"$low - $slack"
    // NaN distances (Spark: larger than any number) are never < r and always > r.
    Seq(s"$udf({col}, {q})", s"$udf({q}, {col})").flatMap { call =>
      Seq(
        Rule(s"$call < {r}", s"coalesce($near < {r}, false)", Some(s"coalesce($high >= {r}, false) OR {nans} > 0")),
        Rule(s"$call <= {r}", s"coalesce($near <= {r}, false)", Some(s"coalesce($high > {r}, false) OR {nans} > 0")),
        Rule(s"$call > {r}", s"coalesce($high > {r}, false) OR {nans} > 0", Some(s"coalesce($near <= {r}, false)")),
        Rule(s"$call >= {r}", s"coalesce($high >= {r}, false) OR {nans} > 0", Some(s"coalesce($near < {r}, false)")),
        Rule(s"$call = {r}", s"coalesce($near <= {r} AND $high >= {r}, false)"))
    }
  }
}
