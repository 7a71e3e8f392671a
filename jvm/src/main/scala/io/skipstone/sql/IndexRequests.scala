package io.skipstone.sql

import org.json4s.JsonAST.{JArray, JObject, JString, JValue}
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

/**
 * `CREATE SKIPPING INDEX` index specs as the index build's requests: `{"kind", "columns",
 * "params", "key"}` per index (`key` null for an index not encrypted with a key of its own), params as strings exactly as Python's `IndexType.params()` stores them.
 *
 * Built-in kinds are checked here (column count, option names) so that a typo is reported with
 * the statement, before any job runs; user-defined kinds go through by name.
 */
object IndexRequests {
  private final case class Kind(columns: Int, options: Seq[String], required: Seq[String] = Nil,
                                needsPython: Option[String] = None)

  private val BuiltIn: Map[String, Kind] = Map(
    "minmax" -> Kind(1, Nil),
    "valuelist" -> Kind(1, Seq("max_size")),
    "bloomfilter" -> Kind(1, Seq("fpp", "expected_items")),
    "hybrid" -> Kind(1, Seq("threshold", "fpp")),
    "prefix" -> Kind(1, Seq("length"), required = Seq("length")),
    "suffix" -> Kind(1, Seq("length"), required = Seq("length")),
    "gaplist" -> Kind(1, Seq("gaps")),
    "geobox" -> Kind(2, Seq("boxes", "contains", "distance"),
      needsPython = Some("its boxes are computed per file by a Python (pandas) function")),
    "formatted" -> Kind(1, Seq("expression", "name", "type"), required = Seq("expression")),
    "metricdist" -> Kind(1, Seq("metric.udf", "metric.sql", "metric.tolerance", "origin"),
      required = Seq("metric.udf", "metric.sql", "origin")))

  val BuiltInKinds: Set[String] = BuiltIn.keySet

  /** The request of one index, or an error naming the index and the option at fault. */
  def request(statement: String, spec: IndexSpec): JObject = {
    val kind = spec.kind.toLowerCase(java.util.Locale.ROOT) // kinds are lower case, built-in or user-defined
    val shown = s"${spec.kind}(${spec.columns.mkString(", ")})"
    def fail(why: String) = throw new SkipstoneSqlException(s"$statement: $shown $why")
    val params = BuiltIn.get(kind) match {
      case None => spec.options
      case Some(k) =>
        k.needsPython.foreach { why =>
          fail(s"cannot be built from SQL: $why. Build it from Python, e.g. " +
            s"Skipstone.for_path(spark, path).build(GeoBox(...)) (docs/index-types.md)")
        }
        if (spec.columns.size != k.columns) fail(s"takes ${k.columns} column(s), not ${spec.columns.size}")
        val named = spec.options.map { case (key, v) =>
          val canonical = k.options.find(_.equalsIgnoreCase(key)).getOrElse(
            fail(s"has no option '$key'" + (if (k.options.isEmpty) "" else s" (it takes ${k.options.mkString(", ")})")))
          canonical -> v
        }
        named.groupBy(_._1).collectFirst { case (key, vs) if vs.size > 1 => fail(s"sets option '$key' twice") }
        k.required.filterNot(r => named.exists(_._1 == r)).foreach(r => fail(s"needs OPTIONS ($r ...)"))
        named
    }
    ("kind" -> kind) ~ ("columns" -> JArray(spec.columns.map(JString(_)).toList)) ~
      ("params" -> JObject(params.map { case (k, v) => k -> (JString(v): JValue) }.toList)) ~
      ("key" -> spec.key)
  }

  /** The JSON list of requests of a `CREATE SKIPPING INDEX`. */
  def json(statement: String, specs: Seq[IndexSpec]): String = {
    val shown = specs.map(s => s"${s.kind.toLowerCase}(${s.columns.mkString(",")})")
    shown.diff(shown.distinct).headOption.foreach { dup =>
      throw new SkipstoneSqlException(s"$statement: $dup is requested twice")
    }
    JsonMethods.compact(JsonMethods.render(JArray(specs.map(request(statement, _)).toList)))
  }
}
