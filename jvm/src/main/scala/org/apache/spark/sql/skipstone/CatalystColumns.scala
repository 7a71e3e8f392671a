package org.apache.spark.sql.skipstone

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.classic.ExpressionUtils

/**
 * A Catalyst expression as a DataFrame column and back. Spark keeps the conversion to its own
 * packages (`private[sql]`); Skipstone needs it for expressions of its own that the public
 * column functions cannot build (`io.skipstone.layout.RouteByTree`), so this one bridge
 * lives in a package under `org.apache.spark.sql`, as connectors' bridges do.
 */
object CatalystColumns {
  def column(expression: Expression): Column = ExpressionUtils.column(expression)

  def expression(column: Column): Expression = ExpressionUtils.expression(column)
}
