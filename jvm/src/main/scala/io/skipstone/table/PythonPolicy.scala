package io.skipstone.table

import org.apache.spark.sql.SparkSession

/**
 * A layout policy written in Python, as py4j's callback server hands it to the JVM
 * (`skipstone.table.driver`): Python's planner reads the base version, the logged workload and
 * the sample, and answers with the change as JSON. Rows never cross: the JVM rewrites.
 */
trait PythonPolicy {
  /**
   * The change the policy proposes for version `baseVersion` of the table at `root`, as the JSON
   * [[ProposedChange.fromJson]] reads (`{"error": message}` when the policy failed); null for none.
   */
  def propose(session: SparkSession, root: String, baseVersion: Long): String
}

object PythonPolicy {
  def asLayoutPolicy(policy: PythonPolicy): LayoutPolicy =
    (session, root, base) => Option(policy.propose(session, root, base.version)).map(ProposedChange.fromJson)
}

/**
 * What a table operation asks of its session's Python driver: the roles of indexes that a
 * Python function computes, and the layout policy the table names (`optimize.layoutPolicy`), which
 * `optimize()` and the automatic optimize after an append use.
 */
trait PythonDriver extends PythonPolicy {
  /** Computes the Python roles of the indexes of the table at `root` for new files; null when none has one. */
  def roles(session: SparkSession, root: String): PythonRoles
}
