package io.skipstone.layout.builders

import scala.collection.mutable

import io.skipstone.layout.{Leaf, LayoutNode, Split, TreeLayout}

/**
 * Amoeba's robust upfront tree (Algorithm 1, CreateTree), as
 * `skipstone.layout.builders.amoeba_upfront` builds it without weights: breadth first, every node
 * takes the column with the most allocation left (ties: the column used least on the path, then
 * noise of the seed, the node and the column), cut at the median of the sample rows reaching it;
 * each cut spends 2 / 2^(levels above the node) of its column's allocation. With `correlations`
 * the columns are first ranked by their [[SkippingGain]] and no node under two blocks is cut;
 * without, it is the paper's Algorithm 1, cut to a fixed depth.
 */
object AmoebaBuilder {

  def build(sample: EncodedSample, blockRows: Double, totalRows: Double, columns: Option[Seq[String]], seed: Long,
            correlations: Boolean): TreeLayout = {
    MedianCut.checkBlockRows(blockRows)
    val scale = MedianCut.sampleScale(sample.rows, totalRows)
    val buckets = math.floor(sample.rows * scale / blockRows)
    val levels = if (buckets >= 2) floorLog2(buckets) else 0
    val candidates = DataAwareTrees.columnIndexes(sample, columns)
    val gain = if (correlations) Some(new SkippingGain(sample, candidates, seed)) else None
    val tree = new Growth(sample, scale, levels, candidates, seed, gain, if (correlations) Some(blockRows) else None)
    TreeLayout(sample.schema, TreeLeaves.numbered(tree.root))
  }

  /** floor(log2(b)) of a whole number b >= 1, exact (as Python's math.log2 is for the bucket counts a table has). */
  private def floorLog2(b: Double): Int = 63 - java.lang.Long.numberOfLeadingZeros(b.toLong)

  /** One tree's growth: allocation is spent as nodes are cut, breadth first, so the halves of a node see each other's choices. */
  private final class Growth(sample: EncodedSample, scale: Double, levels: Int, candidates: Seq[Int], seed: Long,
                             gain: Option[SkippingGain], sizedLeaves: Option[Double]) {
    // the allocation each column has left, spent as the tree grows (this growth's own state)
    private val allocation: Array[Double] = {
      val a = Array.fill(sample.width)(Double.NegativeInfinity)
      candidates.foreach(c => a(c) = 2.0 * levels / candidates.size)
      a
    }
    // per node (heap position: root 1, children 2n and 2n + 1): its cut, if any, and its sample rows
    private val cuts = mutable.Map.empty[Long, (Int, Double)]
    private val rowsOf = mutable.Map.empty[Long, Array[Int]]

    val root: LayoutNode = {
      val queue = mutable.Queue((1L, levels, Array.range(0, sample.rows), List.empty[Int]))
      while (queue.nonEmpty) {
        val (node, depth, rows, path) = queue.dequeue()
        rowsOf(node) = rows
        if (depth > 0 && !sizedLeaves.exists(MedianCut.tooSmallToCut(rows.length, scale, _))) {
          val preferred = byPreference(path, node)
          val order = gain.fold(preferred)(_.ranked(rows, preferred, node))
          order.iterator.flatMap(c => MedianCut.of(sample.values(c, rows)).map(c -> _)).nextOption().foreach {
            case (column, cut) =>
              cuts(node) = (column, cut)
              allocation(column) -= 2.0 / (1L << (levels - depth)).toDouble
              val values = sample.values(column, rows)
              val (left, right) = rows.indices.partition(i => values(i) <= cut)
              queue.enqueue((2 * node, depth - 1, left.map(rows(_)).toArray, column :: path))
              queue.enqueue((2 * node + 1, depth - 1, right.map(rows(_)).toArray, column :: path))
          }
        }
      }
      assemble(1L)
    }

    private def assemble(node: Long): LayoutNode = cuts.get(node) match {
      case None => Leaf(0, rowsOf(node).length * scale)
      case Some((column, cut)) => Split(column, cut, assemble(2 * node), assemble(2 * node + 1))
    }

    /**
     * leastAllocated as an ordering: most allocation left first (rounded to 9 decimals as
     * Python's round(x, 9), half to even, so near-equal allocations tie), then fewest uses on
     * the path, then noise.
     */
    private def byPreference(path: List[Int], node: Long): Seq[Int] = {
      val usable = candidates.filter(c => !allocation(c).isInfinite && !allocation(c).isNaN)
      usable.map { c =>
        // the double's exact value, rounded as Python rounds it
        (c, new java.math.BigDecimal(allocation(c)).setScale(9, java.math.RoundingMode.HALF_EVEN), path.count(_ == c),
          Noise.unit(Noise.hashed(seed, Noise.Preference, node, c.toLong)))
      }.sortWith { case ((_, a1, p1, n1), (_, a2, p2, n2)) =>
        val byAllocation = a1.compareTo(a2)
        if (byAllocation != 0) byAllocation > 0 else if (p1 != p2) p1 < p2 else n1 < n2
      }.map(_._1)
    }
  }
}
