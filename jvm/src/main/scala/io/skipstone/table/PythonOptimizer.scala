package io.skipstone.table

import org.apache.spark.sql.SparkSession

/**
 * A session's Python driver as SQL's `OPTIMIZE` meets it: what the JVM does not run itself, the
 * layout policies of an optimize iteration (Python's default policy, asked by the one strategy
 * loop, [[OptimizeIteration]], as `t.optimize()` asks it), the roles of indexes a Python function
 * computes, and the layouts Python builds from a table's logged workload. A session whose driver
 * is Python registers one over py4j's callback server (`skipstone.table.sql_optimize`); a JVM
 * without a Python driver has none. The layouts the JVM builds never ask it ([[Relayout.builtIn]]).
 */
trait PythonOptimizer extends PythonDriver {
  /**
   * The managed table at `root` rewritten under a layout Python builds
   * (`{"name": "paw", "columns": []}`): a JSON list of the [[OptimizeResult]]s committed, or
   * `{"error": message}`.
   */
  def optimize(session: SparkSession, root: String, layoutJson: String): String

  /** The names (lower case, a JSON list) of the layouts Python builds: `["paw", "qdtree", "auto"]`. */
  def layouts(): String

  /**
   * The skipping-index advice for the managed table at `root` from its logged workload (Python's
   * `t.advise()`): a JSON list of rows (objects named as `DESCRIBE SKIPPING ADVICE`'s columns),
   * or `{"error": message}`.
   */
  def advise(session: SparkSession, root: String): String
}

object PythonOptimizer {
  // One Python driver per JVM registers it once; read by any thread that runs an OPTIMIZE.
  @volatile private var registered: Option[PythonOptimizer] = None

  def register(handler: PythonOptimizer): Unit = registered = Option(handler)
  def unregister(): Unit = registered = None
  def current: Option[PythonOptimizer] = registered

  /** The layout names the registered optimizer builds; none without one. */
  def layoutNames: Seq[String] = current.toSeq.flatMap { python =>
    implicit val formats: org.json4s.Formats = org.json4s.DefaultFormats
    org.json4s.jackson.JsonMethods.parse(python.layouts()).extract[Seq[String]]
  }
}
