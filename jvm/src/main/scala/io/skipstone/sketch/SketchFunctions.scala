package io.skipstone.sketch

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.types.Decimal

/**
 * SQL functions that index builds call (from Python, as plain Spark functions), registered by
 * the extension so they work in any session that has Skipstone enabled.
 */
object SketchFunctions {
  type Builder = Seq[Expression] => Expression

  val all: Seq[(FunctionIdentifier, ExpressionInfo, Builder)] = Seq(
    function(BloomFilterAggregate.Name, "(column, expected_items, fpp) - a bloom filter of the column's values") {
      case Seq(column, items, fpp) => BloomFilterAggregate(column, number(items, "expected_items").toLong, number(fpp, "fpp"))
    },
    function(BloomFilterOfValues.Name, "(values, fpp) - a bloom filter of an array's values, sized for them") {
      case Seq(values, fpp) => BloomFilterOfValues(values, number(fpp, "fpp"))
    })

  private def function(name: String, usage: String)(build: PartialFunction[Seq[Expression], Expression]) = {
    val info = new ExpressionInfo(getClass.getName, null, name, s"$name$usage", "", "", "", "", "", "", "")
    val builder: Builder = args => build.applyOrElse(args, (a: Seq[Expression]) =>
      throw new IllegalArgumentException(s"$name takes ${usage.takeWhile(_ != ')')}), got ${a.length} arguments"))
    (FunctionIdentifier(name), info, builder)
  }

  private def number(e: Expression, what: String): Double = e.eval() match {
    case n: Number => n.doubleValue
    case d: Decimal => d.toDouble
    case other => throw new IllegalArgumentException(s"$what must be a constant number, got $other")
  }
}
