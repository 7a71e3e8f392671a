package io.skipstone.table

import org.apache.spark.sql.SparkSession

/**
 * The Python implementation of what the JVM does not run itself: the layout policies of an
 * optimize iteration, and the layouts Python builds from a table's logged workload. A session
 * whose driver is Python registers one over py4j's callback server (`skipstone.table.sql_optimize`),
 * so SQL's `OPTIMIZE` runs what `t.optimize()` runs; a JVM without a Python driver has none.
 * The layouts the JVM builds never ask it ([[Relayout.builtIn]]).
 */
trait PythonOptimizer {
  /**
   * One optimize iteration of the managed table at `root` (`layoutJson` null), or its rewrite
   * under a layout Python builds (`{"name": "paw", "columns": []}`): a JSON list of the
   * [[OptimizeResult]]s committed (empty when nothing was to do), or `{"error": message}`.
   */
  def optimize(session: SparkSession, root: String, layoutJson: String): String

  /** The names (lower case, a JSON list) of the layouts Python builds: `["paw", "qdtree"]`. */
  def layouts(): String

  /** The callback that computes the Python roles of the table's indexes, or null when none has one. */
  def roles(session: SparkSession, root: String): PythonRoles
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
