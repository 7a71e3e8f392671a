package io.skipstone.indexing

import scala.collection.immutable.ListMap

import org.json4s._
import org.json4s.jackson.JsonMethods

/**
 * One index to build, exactly as `index.json` stores it: a kind, the columns as the user named
 * them, and kind-specific settings as strings. `name` is how messages and statistics show it
 * (the Python API passes its `describe()`); left out, the kind's own description is used.
 *
 * `key`, if set, is the id of the key its metadata is encrypted with (docs/encryption.md).
 *
 * JSON: `[{"kind": "minmax", "columns": ["temp"], "params": {}, "name": "MinMax(temp)", "key": "k1"}, ...]`.
 */
case class IndexRequest(kind: String, columns: Seq[String], params: Map[String, String], name: Option[String] = None,
                        key: Option[String] = None) {
  def param(key: String): Option[String] = params.get(key)
}

object IndexRequest {
  private implicit val formats: Formats = DefaultFormats

  /** Settings in the order given (roles are kept in that order), numbers and booleans as text. */
  private def params(json: JValue): Map[String, String] = json match {
    case JObject(fields) => ListMap.from(fields.collect {
      case (k, JString(v)) => k -> v
      case (k, v @ (_: JInt | _: JDouble | _: JDecimal | _: JLong | _: JBool)) => k -> JsonMethods.compact(v)
    })
    case _ => ListMap.empty
  }

  def parseAll(json: String): Seq[IndexRequest] = {
    val parsed = scala.util.Try(JsonMethods.parse(json)).getOrElse(
      throw new IndexBuildError(s"index requests are not JSON: $json"))
    val items = parsed match {
      case JArray(items) => items
      case other => throw new IndexBuildError(
        s"index requests must be a JSON list of {kind, columns, params}, got ${JsonMethods.compact(other)}")
    }
    items.map { ix =>
      val kind = (ix \ "kind").extractOpt[String].getOrElse(
        throw new IndexBuildError(s"index request ${JsonMethods.compact(ix)} has no kind"))
      IndexRequest(kind.toLowerCase(java.util.Locale.ROOT),
        (ix \ "columns").extractOpt[Seq[String]].getOrElse(Seq.empty),
        params(ix \ "params"),
        (ix \ "name").extractOpt[String],
        (ix \ "key").extractOpt[String].map(_.trim).filter(_.nonEmpty))
    }
  }
}
