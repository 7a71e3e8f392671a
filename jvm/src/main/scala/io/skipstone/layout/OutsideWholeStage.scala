package io.skipstone.layout

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.DataType

/**
 * `child`, evaluated row by row and never inlined into whole-stage generated code.
 *
 * A layout's routing is a CASE per tree node (a few hundred for a table of a few hundred
 * blocks). Inlined into the loop Spark generates for a whole stage, beside the code that reads
 * every column, it makes a method too large for the JIT compiler to compile (HotSpot leaves
 * methods over 8,000 bytecodes interpreted), and the whole stage runs interpreted: reading and
 * routing 6 M rows of 25 columns took 11.5 s against 5 s evaluated this way (TPC-H SF 1, 2 cores;
 * `benchmarks/layout_spark/routing_speed.py`). Spark keeps an operator with a [[CodegenFallback]]
 * expression out of whole-stage code generation.
 */
private[layout] final case class OutsideWholeStage(child: Expression) extends UnaryExpression with CodegenFallback {
  override def dataType: DataType = child.dataType
  override def nullable: Boolean = child.nullable
  override def eval(input: InternalRow): Any = child.eval(input)
  override protected def withNewChildInternal(newChild: Expression): OutsideWholeStage = copy(child = newChild)
}
