package io.skipstone.table

import org.apache.spark.sql.SparkSession
import org.json4s._
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import io.skipstone.layout.LayoutDocument

/**
 * A layout change a policy proposed (the layout strategy; the policy is Python): the blocks the
 * new layout drops are read and their rows routed into the blocks it adds; the OPTIMIZE version
 * lists the new files instead of the old and records the new layout. Only those blocks are read
 * and written. A [[TableTransaction]] with failpoints `optimize.afterWrite`, `.afterMetadata`,
 * `.afterCommit`; it loses to any concurrent change of the layout or of the blocks it rewrites,
 * and then leaves nothing behind (the policy plans again on the winner's version).
 *
 * {{{
 *   Rewrite.run(spark, "file:/data/sales", readVersion = 7, newLayout, rewritten = Seq(3L), info)
 * }}}
 */
object Rewrite {
  private implicit val formats: Formats = DefaultFormats

  /**
   * @param layout    the new layout: the base's with the `rewritten` blocks replaced by new ones
   * @param rewritten the blocks of the base's layout that `layout` drops
   * @param info      what the policy says of the change (policy, benefit, cost, reason, description)
   */
  def run(session: SparkSession, root: String, readVersion: Long, layout: LayoutDocument, rewritten: Seq[Long],
          info: JObject, roles: Option[PythonRoles] = None): OptimizeResult = {
    val txn = TableTransaction.open(session, root, readVersion, "optimize", s"optimize of $root")
    val before = txn.layout.blockIds.map(_.toLong).toSet
    val after = layout.blockIds.map(_.toLong).toSet
    val dropped = before -- after
    if (dropped != rewritten.toSet) throw new IllegalArgumentException(s"optimize of $root: the change lists blocks " +
      s"${rewritten.sorted.mkString("[", ", ", "]")} as rewritten, but its layout drops blocks " +
      s"${dropped.toSeq.sorted.mkString("[", ", ", "]")}")
    val added = (after -- before).toSeq.sorted
    val old = txn.base.files.filter(f => dropped.contains(f.block))
    val reason = (info \ "reason").extractOpt[String].getOrElse("")
    val committed = txn.commit(TableWrite("OPTIMIZE", txn.rowsOf(old), Routing.ThroughLayout(layout, added), old,
      Some(layout), info ~ ("strategy" -> "layout") ~ ("selected" -> old.map(_.path).sorted) ~
        ("bytesRead" -> old.map(_.size).sum) ~ ("blocksRewritten" -> rewritten) ~ ("blocksAdded" -> added)), roles)
    OptimizeResult(committed.snapshot.version, number(info \ "benefit"), number(info \ "cost"), committed.rows,
      committed.added.size, old.size, "layout", reason, old.map(_.size).sum)
  }

  /**
   * [[run]] for Python: the change as JSON `{"layout": document, "rewritten": [block...], "info": {...}}`,
   * the result as JSON; `roles` may be null.
   */
  def runFromPython(session: SparkSession, root: String, readVersion: Long, changeJson: String,
                    roles: PythonRoles): String = {
    val change = JsonMethods.parse(changeJson)
    val info = change \ "info" match { case o: JObject => o; case _ => JObject() }
    run(session, root, readVersion, LayoutDocument.read(change \ "layout"), (change \ "rewritten").extract[Seq[Long]],
      info, Option(roles)).toJson
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
