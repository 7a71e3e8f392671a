package io.skipstone.table

import org.apache.spark.sql.SparkSession

/**
 * The Python implementation of an optimize: layout policies, tree builders and routing rows
 * through a layout are Python. A session whose driver is Python registers one over py4j's
 * callback server (`skipstone.table.sql_optimize`), so SQL's `OPTIMIZE` runs what `t.optimize()`
 * runs; a JVM without a Python driver has none.
 */
trait PythonOptimizer {
  /**
   * One optimize iteration of the managed table at `root` (`layoutJson` null), or its rewrite
   * under a layout (`{"name": "kd", "columns": ["a", "b"]}`): a JSON list of the
   * [[OptimizeResult]]s committed (empty when nothing was to do), or `{"error": message}`.
   */
  def optimize(session: SparkSession, root: String, layoutJson: String): String
}

object PythonOptimizer {
  // One Python driver per JVM registers it once; read by any thread that runs an OPTIMIZE.
  @volatile private var registered: Option[PythonOptimizer] = None

  def register(handler: PythonOptimizer): Unit = registered = Option(handler)
  def unregister(): Unit = registered = None
  def current: Option[PythonOptimizer] = registered
}
