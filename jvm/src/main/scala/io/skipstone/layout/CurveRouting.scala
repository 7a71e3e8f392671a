package io.skipstone.layout

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.expressions.UserDefinedFunction
import org.apache.spark.sql.functions.{array, col, lit, udf}

/**
 * Routing the rows of a curve layout (Z-order, Hilbert): each curve column's cell code is a
 * binary search over its edges with the test the trees route with, so the code is how many
 * edges lie strictly below the encoded value (NumPy's `searchsorted(edges, v, side="left")`, as
 * `CurveLayout.keys` computes it); the key is [[CurveKeys]] of the codes; the block a binary
 * search of the key over the block boundaries.
 *
 * Codes and key are computed in projections of their own: every test of the searches reads
 * them, and one expression would copy a column's whole search into every use of its code.
 */
private[layout] object CurveRouting {
  private val KeyColumn = "__skipstone_curve_key"
  private def codeColumn(i: Int): String = s"__skipstone_curve_code$i"

  def withBlock(rows: DataFrame, layout: CurveLayout, tests: CutTests, name: String): DataFrame = {
    require(layout.blocks.nonEmpty, "a curve layout has at least one block")
    val codes = layout.columns.zip(layout.edges).zipWithIndex.map { case ((column, edges), i) =>
      LayoutRouting.search(edges.size, k => tests.atMost(column, edges(k)), code => lit(code.toLong)).as(codeColumn(i))
    }
    val withCodes = rows.select(col("*") +: codes: _*)
    val withKey = withCodes
      .withColumn(KeyColumn, curveKey(layout.curve, layout.bits)(array(layout.columns.indices.map(i => col(codeColumn(i))): _*)))
      .drop(layout.columns.indices.map(codeColumn): _*)
    // Block k holds keys up to boundary k; the last block takes every key above the others, so
    // its boundary (the largest uint64, above every 63-bit key) is never tested.
    val tested = layout.boundaries.take(layout.blocks.size - 1).map { b =>
      require(b.isValidLong, s"curve boundary $b is above every key (at most 63 bits): only the last boundary may be")
      b.toLong
    }
    val key = col(KeyColumn)
    withKey
      .withColumn(name, LayoutRouting.search(tested.size, k => key <= lit(tested(k)), position => lit(position.toLong)))
      .drop(KeyColumn)
  }

  /** The curve key of an array of cell codes, in the executors: no function to register in the session. */
  private def curveKey(curve: String, bits: Int): UserDefinedFunction = {
    val key: Array[Long] => Long = curve match {
      case "zorder" => CurveKeys.zorder(_, bits)
      case "hilbert" => CurveKeys.hilbert(_, bits)
    }
    udf((codes: Seq[Long]) => key(codes.toArray)).withName(s"skipstone_${curve}_key")
  }
}
