package io.skipstone.functions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{DataType, DoubleType, StringType, StructField, StructType}

/**
 * `skipstone_wkt_bbox(wkt)`: the struct `(xmin, ymin, xmax, ymax)` of a WKT geometry, NULL for
 * text that is not WKT or an EMPTY geometry. Clause templates use it to compare a query's
 * polygon with per-file coordinate ranges; on a literal it is folded once per query.
 */
case class WktBoundingBox(child: Expression) extends UnaryExpression with CodegenFallback {

  override def dataType: DataType = WktBoundingBox.Type
  override def nullable: Boolean = true
  override def prettyName: String = WktBoundingBox.Name

  override def checkInputDataTypes(): TypeCheckResult = child.dataType match {
    case _: StringType => TypeCheckResult.TypeCheckSuccess
    case other => TypeCheckResult.TypeCheckFailure(s"$prettyName takes a WKT string, not ${other.simpleString}")
  }

  // Spark's evaluation protocol: a NULL result is the JVM null.
  override protected def nullSafeEval(input: Any): Any =
    Wkt.boundingBox(input.toString).map(b => InternalRow(b.xMin, b.yMin, b.xMax, b.yMax)).orNull

  override protected def withNewChildInternal(newChild: Expression): WktBoundingBox = copy(child = newChild)
}

object WktBoundingBox {
  val Name = "skipstone_wkt_bbox"
  val Type: StructType = StructType(Seq("xmin", "ymin", "xmax", "ymax").map(StructField(_, DoubleType)))
}
