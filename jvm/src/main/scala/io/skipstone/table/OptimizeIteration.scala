package io.skipstone.table

import org.apache.spark.sql.SparkSession

/**
 * One iteration of continuous optimization, the only strategy loop (Python's `t.optimize()`,
 * the automatic optimize after an append, SQL's `OPTIMIZE` and the Scala API all run it): the
 * table's strategies (`optimize.strategies`) are asked in their order against the newest
 * version, and the first that selects something commits.
 *
 *  - `unindexed`: other writers' files absorbed ([[Absorb]]);
 *  - `compaction`: fragmented blocks compacted ([[Compaction]]);
 *  - `layout`: the policy's change ([[LayoutPolicy]]) rewritten ([[Rewrite]]). Without a policy
 *    (a session with no Python driver) it is skipped and reported, never silently.
 *
 * {{{
 *   OptimizeIteration.run(spark, "file:/data/sales", None, None)   // Outcome(Some(OptimizeResult(8, ...)), Seq("layout (...)"))
 * }}}
 */
object OptimizeIteration {
  /**
   * @param committed  what the iteration committed, if anything
   * @param needPython why a strategy was skipped for want of a policy (Skipstone's are Python)
   */
  final case class Outcome(committed: Option[OptimizeResult], needPython: Seq[String])

  val LayoutNeedsPython = "layout (the layout policy that plans a change from the logged workload is Python)"

  /** @param roles computes the roles of indexes that need Python; without it such a table is refused */
  def run(session: SparkSession, root: String, policy: Option[LayoutPolicy], roles: Option[PythonRoles]): Outcome = {
    val base = TableLog.latest(session.sessionState.newHadoopConf(), root)
      .getOrElse(throw new IllegalArgumentException(s"$root is not a Skipstone table"))
    val strategies = TableSettings.of(base.properties, root).strategies
    // lazily: a strategy runs only when none before it committed
    val committed = strategies.iterator.flatMap {
      case "unindexed" => Absorb.run(session, root, base.version, roles)
      case "compaction" => Compaction.run(session, root, base.version, roles)
      case "layout" => policy.flatMap(_.propose(session, root, base)).map(Rewrite.run(session, root, base.version, _, roles))
      case _ => None
    }.nextOption()
    Outcome(committed, if (policy.isEmpty && strategies.contains("layout")) Seq(LayoutNeedsPython) else Nil)
  }
}
