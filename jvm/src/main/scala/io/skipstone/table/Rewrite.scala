package io.skipstone.table

import org.apache.spark.sql.SparkSession
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

/**
 * A layout change a policy proposed (the layout strategy): the blocks the new layout drops are
 * read and their rows routed into the blocks it adds; the OPTIMIZE version lists the new files
 * instead of the old and records the new layout (and, for a whole-table rebuild that names its
 * spec, the spec as `layout.spec`). Only those blocks are read and written. A
 * [[TableTransaction]] with failpoints `optimize.afterWrite`, `.afterMetadata`, `.afterCommit`;
 * it loses to any concurrent change of the layout or of the blocks it rewrites, and then leaves
 * nothing behind (the policy plans again on the winner's version).
 *
 * {{{
 *   Rewrite.run(spark, "file:/data/sales", readVersion = 7,
 *     ProposedChange(newLayout, rewritten = Seq(3L), "SplitHotBlock", benefit = 9e6, cost = 2e6, "split block 3"))
 * }}}
 */
object Rewrite {
  def run(session: SparkSession, root: String, readVersion: Long, change: ProposedChange,
          roles: Option[PythonRoles] = None): OptimizeResult = {
    val txn = TableTransaction.open(session, root, readVersion, "optimize", s"optimize of $root")
    val before = txn.layout.blockIds.map(_.toLong).toSet
    val after = change.layout.blockIds.map(_.toLong).toSet
    val dropped = before -- after
    if (dropped != change.rewritten.toSet) throw new IllegalArgumentException(s"optimize of $root: the change lists " +
      s"blocks ${change.rewritten.sorted.mkString("[", ", ", "]")} as rewritten, but its layout drops blocks " +
      s"${dropped.toSeq.sorted.mkString("[", ", ", "]")}")
    val added = (after -- before).toSeq.sorted
    val old = txn.base.files.filter(f => dropped.contains(f.block))
    val committed = txn.commit(TableWrite("OPTIMIZE", txn.rowsOf(old), Routing.ThroughLayout(change.layout, added), old,
      Some(change.layout), change.commitInfo ~ ("strategy" -> "layout") ~ ("selected" -> old.map(_.path).sorted) ~
        ("bytesRead" -> old.map(_.size).sum) ~ ("blocksRewritten" -> change.rewritten) ~ ("blocksAdded" -> added),
      properties = change.spec.map(spec => Map("layout.spec" -> JsonMethods.compact(JsonMethods.render(spec))))
        .getOrElse(Map.empty)),
      roles)
    OptimizeResult(committed.snapshot.version, change.benefit, change.cost, committed.rows, committed.added.size,
      old.size, "layout", change.reason, old.map(_.size).sum)
  }

  /**
   * [[run]] for Python (a planned change applied outside an optimize iteration): the change as
   * [[ProposedChange.fromJson]] reads it, the result as JSON; `roles` may be null.
   */
  def runFromPython(session: SparkSession, root: String, readVersion: Long, changeJson: String,
                    roles: PythonRoles): String =
    run(session, root, readVersion, ProposedChange.fromJson(changeJson), Option(roles)).toJson
}
