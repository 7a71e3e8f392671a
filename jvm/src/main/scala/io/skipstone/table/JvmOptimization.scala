package io.skipstone.table

import org.apache.spark.sql.SparkSession

/**
 * One optimize iteration as far as the JVM alone can run it: the table's strategies in their
 * order, where `unindexed` ([[Absorb]]) and `compaction` ([[Compaction]]) run here, the first
 * that selects something commits, and `layout` (a policy planning a change from the workload)
 * needs Python. What needed Python is reported, not silently skipped: the caller says so after
 * committing what it could.
 */
object JvmOptimization {
  /**
   * @param committed  what the JVM committed (at most one batch)
   * @param needPython per strategy that had (or may have) work the JVM cannot do, why
   */
  final case class Outcome(committed: Seq[OptimizeResult], needPython: Seq[String])

  def run(session: SparkSession, root: String): Outcome = {
    val base = TableLog.latest(session.sessionState.newHadoopConf(), root)
      .getOrElse(throw new IllegalArgumentException(s"$root is not a Skipstone table"))
    val settings = TableSettings.of(base.properties, root)
    settings.strategies.foldLeft(Outcome(Nil, Nil)) { (outcome, strategy) =>
      strategy match {
        case "unindexed" if outcome.committed.isEmpty =>
          outcome.copy(committed = Absorb.run(session, root, base.version).toSeq)
        case "compaction" if outcome.committed.isEmpty =>
          outcome.copy(committed = Compaction.run(session, root, base.version).toSeq)
        case "layout" =>
          outcome.copy(needPython = outcome.needPython :+ "layout (the layout policy that plans a change from " +
            "the logged workload is Python)")
        case _ => outcome
      }
    }
  }
}
