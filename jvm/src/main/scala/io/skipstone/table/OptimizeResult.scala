package io.skipstone.table

import org.json4s._
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

/**
 * What one optimize iteration committed, as Python's `OptimizeResult` (it is also a row of the
 * table's history): the strategy that selected the work, why, and what it cost.
 */
final case class OptimizeResult(version: Long, benefit: Double, cost: Double, rowsRewritten: Long, filesAdded: Long,
                                filesRemoved: Long, strategy: String, reason: String, bytesRead: Long) {
  def toJson: String = JsonMethods.compact(JsonMethods.render(
    ("version" -> version) ~ ("benefit" -> benefit) ~ ("cost" -> cost) ~ ("rowsRewritten" -> rowsRewritten) ~
      ("filesAdded" -> filesAdded) ~ ("filesRemoved" -> filesRemoved) ~ ("strategy" -> strategy) ~
      ("reason" -> reason) ~ ("bytesRead" -> bytesRead)))
}

object OptimizeResult {
  private implicit val formats: Formats = DefaultFormats

  def fromJson(text: String): OptimizeResult = {
    val j = JsonMethods.parse(text)
    OptimizeResult((j \ "version").extract[Long], (j \ "benefit").extract[Double], (j \ "cost").extract[Double],
      (j \ "rowsRewritten").extract[Long], (j \ "filesAdded").extract[Long], (j \ "filesRemoved").extract[Long],
      (j \ "strategy").extract[String], (j \ "reason").extract[String], (j \ "bytesRead").extract[Long])
  }
}
