package io.skipstone.clauses

import scala.util.Try

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types.{BooleanType, DataType}

import io.skipstone.metadata.ColumnPath

/**
 * A predicate leaf that reads one indexed column and nothing else, rewritten as a test of a
 * single value: every occurrence of the column becomes slot 0 of a one-field row. Evaluating it
 * on each value a file holds gives exactly the leaf's value on the rows holding that value,
 * whatever functions, casts or patterns the leaf applies.
 *
 * @param test       the leaf over `BoundReference(0)`
 * @param columnType the column's type (the slot's type)
 */
case class ValueTest(test: Expression, columnType: DataType) {
  def on(value: Any): Any = test.eval(InternalRow(value))

  /**
   * The leaf's value on rows where the column is NULL, known at planning time. A leaf that
   * fails on NULL (say, a UDF that throws) counts as both TRUE and FALSE: unknown.
   */
  lazy val onNull: Set[Option[Boolean]] = Try(on(null)).fold(
    _ => Set(Some(true), Some(false)),
    v => Set(Option(v).map(_.asInstanceOf[Boolean])))
}

object ValueTest {
  def of(leaf: Expression, column: ColumnPath, resolver: Resolver): Option[ValueTest] = {
    def isColumn(e: Expression) = ColumnPath.isColumn(e, column, resolver)
    val test = leaf.transformDown {
      case e if isColumn(e) => BoundReference(0, e.dataType, nullable = true)
    }
    val slots = test.collect { case b: BoundReference => b.dataType }.distinct
    val evaluable = !test.exists {
      case _: Unevaluable | _: AttributeReference | _: OuterReference => true
      case _ => false
    }
    slots match {
      case Seq(columnType) if evaluable && leaf.deterministic && leaf.dataType == BooleanType =>
        Some(ValueTest(test, columnType))
      case _ => None
    }
  }
}
