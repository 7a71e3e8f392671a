package io.skipstone

import org.apache.spark.sql.SparkSessionExtensions

import io.skipstone.functions.SkipstoneFunctions
import io.skipstone.query.SkippingRule

/**
 * Enables Skipstone: `spark.sql.extensions=io.skipstone.SkipstoneExtension`.
 */
class SkipstoneExtension extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectOptimizerRule(SkippingRule.apply)
    SkipstoneFunctions.inject(extensions)
  }
}
