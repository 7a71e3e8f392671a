package io.skipstone.layout

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{Block, CodegenContext, EmptyBlock, ExprCode, FalseLiteral}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.{BooleanType, DataType, DoubleType, LongType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * A row's block under a tree layout: the [[TreeWalk]] over `values`, one encoded value (a double,
 * never NaN; NULL read as -inf) per layout column in the layout's order. Its generated code
 * evaluates the values and calls the walk, a few lines whatever the size of the tree, so the
 * whole stage that reads, routes and shuffles the rows stays in code the JIT compiles.
 */
private[layout] final case class RouteByTree(values: Seq[Expression], walk: TreeWalk) extends Expression {
  override def children: Seq[Expression] = values
  override def dataType: DataType = LongType
  override def nullable: Boolean = false

  override def eval(input: InternalRow): Any =
    walk.block(values.map { value =>
      val v = value.eval(input)
      if (v == null) Double.NegativeInfinity else v.asInstanceOf[Double]
    }.toArray)

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val walkRef = ctx.addReferenceObj("treeWalk", walk, classOf[TreeWalk].getName)
    val encoded = ctx.addMutableState("double[]", "encodedValues", v => s"$v = new double[${values.size}];")
    val fills = values.zipWithIndex.map { case (value, i) =>
      val c = value.genCode(ctx)
      code"""
        ${c.code}
        $encoded[$i] = ${c.isNull} ? Double.NEGATIVE_INFINITY : ${c.value};"""
    }
    ev.copy(code = code"""
      ${fills.foldLeft(EmptyBlock: Block)(_ + _)}
      long ${ev.value} = $walkRef.block($encoded);""", isNull = FalseLiteral)
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): RouteByTree =
    copy(values = newChildren)
}

/**
 * A categorical column's encoded value: its rank in the layout's dictionary, a value missing from
 * it half-way between the ranks around it, NULL -inf. Strings compare as Spark compares them
 * (UTF-8 bytes, unsigned), booleans false before true, so the test "rank <= cut" holds exactly
 * when `LayoutEncoding.atMost`'s comparison with a dictionary value does.
 */
private[layout] final case class CategoryRank(child: Expression, dictionary: CategoryRanks) extends UnaryExpression {
  override def dataType: DataType = DoubleType
  override def nullable: Boolean = false

  override def eval(input: InternalRow): Any = {
    val v = child.eval(input)
    if (v == null) Double.NegativeInfinity else dictionary.rankOf(v)
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val ranks = ctx.addReferenceObj("categoryRanks", dictionary, classOf[CategoryRanks].getName)
    val c = child.genCode(ctx)
    val rank = if (child.dataType == BooleanType) "rankOfBoolean" else "rankOfString"
    ev.copy(code = code"""
      ${c.code}
      double ${ev.value} = ${c.isNull} ? Double.NEGATIVE_INFINITY : $ranks.$rank(${c.value});""", isNull = FalseLiteral)
  }

  override protected def withNewChildInternal(newChild: Expression): CategoryRank = copy(child = newChild)
}

/** A layout column's sorted dictionary, strings or booleans, and the rank of a value in it. */
private[layout] final class CategoryRanks private (strings: Array[UTF8String], booleans: Array[Boolean]) extends Serializable {

  def rankOf(value: Any): Double = value match {
    case s: UTF8String => rankOfString(s)
    case b: Boolean => rankOfBoolean(b)
  }

  def rankOfString(value: UTF8String): Double = LayoutEncoding.rank(strings.length, strings(_).binaryCompare(value))

  def rankOfBoolean(value: Boolean): Double = LayoutEncoding.rank(booleans.length, booleans(_).compare(value))
}

private[layout] object CategoryRanks {
  /**
   * The dictionary of `column`, a layout column over rows of type `dataType` (a string or a
   * boolean).
   *
   * @throws IllegalArgumentException naming the column when a category is not of the column's
   *                                  type or the categories are not strictly ascending
   */
  def of(column: LayoutColumn, dataType: DataType): CategoryRanks = {
    def refused(why: String) = throw new IllegalArgumentException(s"layout column '${column.name}': $why")
    if (dataType == BooleanType) {
      val booleans = column.categories.map {
        case b: Boolean => b
        case other => refused(s"the category $other of a BOOLEAN column is not a boolean")
      }.toArray
      if (booleans.sliding(2).exists(p => p.length == 2 && !(!p(0) && p(1)))) refused("its categories are not ascending and distinct")
      new CategoryRanks(Array.empty, booleans)
    } else {
      val strings = column.categories.map {
        case s: String => UTF8String.fromString(s)
        case other => refused(s"the category $other of a STRING column is not a string")
      }.toArray
      if (strings.sliding(2).exists(p => p.length == 2 && p(0).binaryCompare(p(1)) >= 0))
        refused("its categories are not ascending and distinct")
      new CategoryRanks(strings, Array.empty)
    }
  }
}
