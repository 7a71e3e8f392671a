package io.skipstone.layout.builders

import io.skipstone.layout.{Leaf, LayoutNode, Split, TreeLayout}

/**
 * Workload-oblivious trees, as `skipstone.layout.builders.data_aware` builds them: the k-d tree
 * (columns round robin by depth) and range partitioning on one column. Both cut at medians of the
 * sample until a node would hold fewer than two blocks' rows, so every block ends with one to
 * two blocks' rows.
 */
object DataAwareTrees {

  /** The k-d tree over `columns` (None: every layout column); a column that cannot cut a node gives way to the next. */
  def kdTree(sample: EncodedSample, blockRows: Double, totalRows: Double, columns: Option[Seq[String]]): TreeLayout = {
    val order = columnIndexes(sample, columns)
    grownTree(sample, blockRows, totalRows, depth => order.drop(depth % order.size) ++ order.take(depth % order.size))
  }

  /** Range partitioning on `column`: median cuts on it alone. */
  def rangeTree(sample: EncodedSample, column: String, blockRows: Double, totalRows: Double): TreeLayout = {
    val index = sample.index(column)
    grownTree(sample, blockRows, totalRows, _ => Seq(index))
  }

  private[builders] def columnIndexes(sample: EncodedSample, columns: Option[Seq[String]]): Seq[Int] = columns match {
    case None => sample.schema.indices
    case Some(names) =>
      if (names.isEmpty) throw new IllegalArgumentException("columns must name at least one layout column")
      names.map(sample.index)
  }

  private def grownTree(sample: EncodedSample, blockRows: Double, totalRows: Double, order: Int => Seq[Int]): TreeLayout = {
    MedianCut.checkBlockRows(blockRows)
    val scale = MedianCut.sampleScale(sample.rows, totalRows)
    TreeLayout(sample.schema, TreeLeaves.numbered(grow(sample, Array.range(0, sample.rows), scale, blockRows, order, 0)))
  }

  private def grow(sample: EncodedSample, rows: Array[Int], scale: Double, blockRows: Double, order: Int => Seq[Int],
                   depth: Int): LayoutNode =
    if (MedianCut.tooSmallToCut(rows.length, scale, blockRows)) Leaf(0, rows.length * scale)
    else order(depth).iterator.map { column =>
      val values = sample.values(column, rows)
      MedianCut.of(values).map { cut =>
        val (left, right) = rows.indices.partition(i => values(i) <= cut)
        Split(column, cut, grow(sample, left.map(rows(_)).toArray, scale, blockRows, order, depth + 1),
          grow(sample, right.map(rows(_)).toArray, scale, blockRows, order, depth + 1))
      }
    }.collectFirst { case Some(split) => split }.getOrElse(Leaf(0, rows.length * scale))
}
