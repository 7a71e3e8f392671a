package io.skipstone.table

import org.apache.spark.sql.SparkSession
import org.json4s._
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import io.skipstone.layout.LayoutDocument

/**
 * The `layout` strategy's question: given the version an optimize read, which layout change
 * pays for itself? Skipstone's policies are Python's (passed in as a [[PythonPolicy]]); a Scala
 * one needs only this.
 *
 * {{{
 *   val splitNothing: LayoutPolicy = (_, _, _) => None
 *   SkipstoneTable.forPath(spark, "/data/events").optimize(splitNothing)
 * }}}
 */
trait LayoutPolicy {
  /** The change proposed for `base`, the newest version of the table at `root` when asked; None for none. */
  def propose(session: SparkSession, root: String, base: Snapshot): Option[ProposedChange]
}

/**
 * A layout change a policy proposes: the new layout, the blocks of the base's layout it drops
 * (their files are rewritten, every other block keeps its files), and what the policy says of it
 * as the history shows it (`policy`, `benefit`, `cost`, `description`, and `reason` when it is
 * not the policy's name and description). A change that rebuilds the whole table by a layout
 * spec (Python's `AutoColumns`: a k-d tree over the columns the workload chose) gives the `spec`,
 * which the table records as its `layout.spec`, as `OPTIMIZE t LAYOUT` does.
 */
final case class ProposedChange(layout: LayoutDocument, rewritten: Seq[Long], info: JObject,
                                spec: Option[JObject] = None) {
  def benefit: Double = ProposedChange.number(info \ "benefit")
  def cost: Double = ProposedChange.number(info \ "cost")
  /** Why, as the history's `reason`: the info's own, else "policy <name>: <description>". */
  def reason: String = (info \ "reason", info \ "policy", info \ "description") match {
    case (JString(r), _, _) => r
    case (_, JString(policy), JString(description)) => s"policy $policy: $description".stripSuffix(": ")
    case (_, JString(policy), _) => s"policy $policy"
    case _ => ""
  }
  /** The commit info: what the policy said, with the reason it is recorded under. */
  def commitInfo: JObject = if (info \ "reason" != JNothing || reason.isEmpty) info else info ~ ("reason" -> reason)
}

object ProposedChange {
  private implicit val formats: Formats = DefaultFormats

  /** A change with its policy's numbers; they must be finite, as the log's JSON has no NaN. */
  def apply(layout: LayoutDocument, rewritten: Seq[Long], policy: String, benefit: Double, cost: Double,
            description: String): ProposedChange = {
    require(!benefit.isNaN && !benefit.isInfinite && !cost.isNaN && !cost.isInfinite,
      s"policy $policy: benefit ($benefit) and cost ($cost) must be finite numbers")
    ProposedChange(layout, rewritten, ("policy" -> policy) ~ ("benefit" -> benefit) ~ ("cost" -> cost) ~
      ("description" -> description))
  }

  /**
   * The JSON a Python policy's proposal crosses py4j as (`skipstone.table.optimize.change_document`):
   * `{"layout": document, "rewritten": [block...], "info": {...}, "spec": {...}?}`, or `{"error": message}` when
   * the policy failed, which is thrown as a [[PolicyFailed]].
   */
  def fromJson(text: String): ProposedChange = {
    val json = JsonMethods.parse(text)
    (json \ "error").extractOpt[String].foreach(message => throw new PolicyFailed(message))
    ProposedChange(LayoutDocument.read(json \ "layout"), (json \ "rewritten").extract[Seq[Long]],
      json \ "info" match { case o: JObject => o; case _ => JObject() },
      json \ "spec" match { case o: JObject => Some(o); case _ => None })
  }

  /** A benefit or cost as the commit info holds it: a number, or Python's spelling of NaN and the infinities. */
  private def number(j: JValue): Double = j match {
    case JDouble(d) => d
    case JInt(i) => i.toDouble
    case JLong(l) => l.toDouble
    case JString("inf") | JString("Infinity") => Double.PositiveInfinity
    case JString("-inf") | JString("-Infinity") => Double.NegativeInfinity
    case JString(_) => Double.NaN
    case _ => 0.0
  }
}

/** A layout policy failed (raised, or proposed something malformed); nothing was written. */
class PolicyFailed(message: String) extends RuntimeException(message)
