package io.skipstone.layout

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.skipstone.CatalystColumns
import org.apache.spark.sql.functions.{col, when}
import org.apache.spark.sql.types.{DataType, StructType}

/**
 * Routing rows to the blocks of a layout, in the executors, by the one test "encoded value <=
 * cut" both the sample and the rows go through ([[LayoutEncoding]]): a tree's rows by a walk over
 * its cuts held in arrays ([[TreeWalk]], [[RouteByTree]]), a curve's by Spark expressions built on
 * [[LayoutEncoding.atMost]]. Every test is TRUE or FALSE, never NULL, so each row gets exactly one
 * block: the block `route` of `skipstone.layout` gives its encoded values.
 *
 * {{{
 *   LayoutRouting.withBlock(rows, LayoutDocument.parse(layoutJson), "block")   // rows plus a LongType block id
 * }}}
 */
object LayoutRouting {

  /**
   * `rows` plus a LongType column `name` holding each row's block: a tree's `Leaf.block`, a curve
   * layout's block position (0 until its number of blocks). A layout column is the top-level
   * column of `rows` of exactly its name.
   *
   * @throws IllegalArgumentException naming the column when a layout column is missing from `rows`
   *                                  or has a type of another layout kind
   */
  def withBlock(rows: DataFrame, layout: LayoutDocument, name: String): DataFrame = {
    val tests = new CutTests(rows.schema, layout.schema)
    layout match {
      case tree: TreeLayout =>
        val values = layout.schema.indices.map(d => CatalystColumns.expression(tests.encoded(d)))
        rows.withColumn(name, CatalystColumns.column(RouteByTree(values, TreeWalk.of(tree))))
      case curve: CurveLayout => CurveRouting.withBlock(rows, curve, tests, name)
    }
  }

  /**
   * Balanced binary search over `n` sorted thresholds: `result(i)` for the number i of thresholds
   * the value exceeds, where `atMost(k)` tests value <= threshold k. Depth log2(n), not a chain
   * of n tests.
   */
  private[layout] def search(n: Int, atMost: Int => Column, result: Int => Column): Column = {
    def between(low: Int, high: Int): Column = // the answer lies in [low, high]
      if (low == high) result(low)
      else {
        val mid = (low + high) / 2
        when(atMost(mid), between(low, mid)).otherwise(between(mid + 1, high))
      }
    between(0, n)
  }
}

/**
 * The tests "encoded value of layout column `d` <= cut" over rows of schema `rows`: each layout
 * column is the top-level column of exactly its name, of a type of the column's kind.
 */
private[layout] final class CutTests(rows: StructType, layout: Seq[LayoutColumn]) {
  private val types: IndexedSeq[DataType] = layout.map { column =>
    val field = rows.fields.find(_.name == column.name).getOrElse(throw new IllegalArgumentException(
      s"layout column '${column.name}' is not a column of the rows (columns: ${rows.fieldNames.mkString(", ")})"))
    val kind = LayoutEncoding.kindOf(field.dataType)
    require(kind.contains(column.kind), s"layout column '${column.name}' is ${column.kind.name} in the layout, " +
      s"but the rows' column has type ${field.dataType.simpleString}" +
      kind.fold(", which a layout cannot order")(k => s", a ${k.name} column"))
    field.dataType
  }.toIndexedSeq

  def atMost(d: Int, cut: Double): Column =
    LayoutEncoding.atMost(CutTests.column(layout(d).name), types(d), layout(d), cut)

  /**
   * The encoded value of layout column `d`, a double never NULL nor NaN: a category's rank in the
   * layout's dictionary, any other kind's [[LayoutEncoding.encoded]] value.
   */
  def encoded(d: Int): Column = {
    val c = CutTests.column(layout(d).name)
    if (layout(d).kind != ColumnKind.Categorical) LayoutEncoding.encoded(c, types(d))
    else CatalystColumns.column(CategoryRank(CatalystColumns.expression(c), CategoryRanks.of(layout(d), types(d))))
  }
}

private[layout] object CutTests {
  /** The top-level column of exactly this name: quoted, so that `a.b` is not field b of a struct a. */
  def column(name: String): Column = col("`" + name.replace("`", "``") + "`")
}
