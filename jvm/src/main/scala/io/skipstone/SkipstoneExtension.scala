package io.skipstone

import org.apache.spark.sql.SparkSessionExtensions

import io.skipstone.functions.SkipstoneFunctions
import io.skipstone.query.SkippingRule
import io.skipstone.sketch.SketchFunctions

/**
 * Enables Skipstone: `spark.sql.extensions=io.skipstone.SkipstoneExtension`.
 */
class SkipstoneExtension extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectOptimizerRule(SkippingRule.apply)
    SketchFunctions.all.foreach(extensions.injectFunction)
    SkipstoneFunctions.inject(extensions)
  }
}
