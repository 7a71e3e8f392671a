package io.skipstone.indexing

import scala.collection.immutable.ListMap

import org.apache.spark.sql.SparkSession

import io.skipstone.indexing.RuleText.{Role, Rule}

/**
 * GeoBox: per file up to `boxes` boxes covering its (lat, lon) points. Finding the boxes
 * clusters each file's points in Python (role `boxes`), so building it needs Python; its
 * rules (`contains`, `distance` UDFs, ranges on either coordinate) are data like any kind's.
 */
object GeoBoxKind extends RuleKind {
  /** The Python function that computes the boxes, as the Python API records it. */
  val BoxesFunction = "GeoBox.role_definitions.<locals>.boxes"
  private val BoxType = "array<struct<lat_min:double,lat_max:double,lon_min:double,lon_max:double>>"
  private val Bbox = "skipstone_wkt_bbox({wkt})"
  private val DistanceSlack = "1e-9 * (abs({lat0}) + abs({lon0}) + abs({d}))"

  override def describe(request: IndexRequest): String =
    s"GeoBox(${request.columns.mkString(", ")}, boxes=${request.param("boxes").getOrElse("4")})"

  override def prepare(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn],
                       dataset: String): IndexRequest = {
    if (request.columns.length != 2) throw new IndexBuildError(
      s"GeoBox indexes two columns (latitude, longitude), got ${request.columns.mkString(", ")}")
    val boxes = request.param("boxes").getOrElse("4")
    if (!boxes.toIntOption.exists(_ >= 1)) throw new IndexBuildError(
      s"GeoBox(${request.columns.mkString(", ")}) needs boxes >= 1, not $boxes")
    val settings = ListMap("boxes" -> boxes, "contains" -> request.param("contains").getOrElse("st_contains"),
      "distance" -> request.param("distance").getOrElse("st_distance"), "cover" -> "boxes")
    val definitions = if (RuleText.hasDefinitions(request.params)) request.params.filter { case (k, _) => !settings.contains(k) }
      else RuleText.params(roles, rules(settings("contains"), settings("distance")))
    RuleKind.checked(session, request.copy(params = settings ++ definitions), IndexKinds.describe(request))
  }

  private val roles: Seq[Role] = {
    val both = "({col0} IS NULL AND {col1} IS NULL)"
    val present = "({col0} IS NOT NULL AND {col1} IS NOT NULL AND NOT isnan({col0}) AND NOT isnan({col1}))"
    Seq(Role("boxes", BoxType, None, Some(BoxesFunction)),
      // rows the boxes leave out though a predicate could hold: one coordinate only, or NaN
      Role("odd", "long", Some(s"count_if(NOT $both AND NOT $present)")))
  }

  private def anyBox(condition: String): String = s"{odd} > 0 OR exists({boxes}, b -> $condition)"

  private def rules(contains: String, distance: String): Seq[Rule] = {
    val meets = s"b.lat_min <= $Bbox.ymax AND b.lat_max >= $Bbox.ymin AND b.lon_min <= $Bbox.xmax AND b.lon_max >= $Bbox.xmin"
    val near = "sqrt(pow(greatest(b.lat_min - {lat0}, {lat0} - b.lat_max, 0D), 2) + " +
      s"pow(greatest(b.lon_min - {lon0}, {lon0} - b.lon_max, 0D), 2)) <= {d} + $DistanceSlack"
    val calls = Seq(s"$distance({col0}, {col1}, {lat0}, {lon0})", s"$distance({lat0}, {lon0}, {col0}, {col1})")
    Seq(Rule(s"$contains({wkt}, {col0}, {col1})", anyBox(meets))) ++
      calls.flatMap(call => Seq("<", "<=").map(op => Rule(s"$call $op {d}", anyBox(near)))) ++
      RuleText.range("{col0}", "b.lat_min", "b.lat_max", anyBox) ++
      RuleText.range("{col1}", "b.lon_min", "b.lon_max", anyBox)
  }
}
