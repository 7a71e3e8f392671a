package io.skipstone.layout

import scala.collection.mutable.ArrayBuffer

/**
 * A tree layout as flat arrays, and the walk that takes a row's encoded values to its block: the
 * routing every executor runs once per row of a write.
 *
 * The walk is a short loop over arrays rather than an expression per tree node, so that the
 * code Spark generates for a routed write stays small enough for the JIT compiler whatever the
 * size of the tree: a nested CASE of a few hundred nodes inlined beside a scan made a method
 * HotSpot leaves interpreted, and evaluating it row by row outside generated code cost more
 * than the scan itself.
 *
 * The tests are those of [[LayoutEncoding.atMost]] over encoded values, which are never NaN
 * (NULL is -inf, NaN +inf, a category its rank): a split sends a row left when its value is at
 * most the cut; a group holds it when every bounded side of the box (low, high] does, an
 * infinite bound being no test at all (so NULL lies in a box unbounded below).
 */
private[layout] final class TreeWalk private (
    kinds: Array[Byte], // per node: Leaf, Split or Groups
    columns: Array[Int], // a split's column
    cuts: Array[Double], // a split's cut
    lefts: Array[Int], // a split's left node; a group split's first group
    rights: Array[Int], // a split's right node; a group split's rest
    blocks: Array[Long], // a leaf's block
    groupEnds: Array[Int], // a group split's groups are lefts(i) until groupEnds(i)
    groupChildren: Array[Int],
    groupLowColumns: Array[Array[Int]], // the columns a group's box bounds below, and the bounds
    groupLows: Array[Array[Double]],
    groupHighColumns: Array[Array[Int]],
    groupHighs: Array[Array[Double]]) extends Serializable {

  /** The block of a row whose layout columns have these encoded values (in the layout's column order). */
  def block(values: Array[Double]): Long = {
    var node = 0
    while (kinds(node) != TreeWalk.Leaf) {
      node =
        if (kinds(node) == TreeWalk.Split) { if (values(columns(node)) <= cuts(node)) lefts(node) else rights(node) }
        else firstGroupHolding(node, values)
    }
    blocks(node)
  }

  private def firstGroupHolding(node: Int, values: Array[Double]): Int = {
    var g = lefts(node)
    while (g < groupEnds(node)) {
      if (holds(g, values)) return groupChildren(g)
      g += 1
    }
    rights(node)
  }

  private def holds(g: Int, values: Array[Double]): Boolean = {
    val (lowColumns, lows, highColumns, highs) = (groupLowColumns(g), groupLows(g), groupHighColumns(g), groupHighs(g))
    var k = 0
    while (k < lowColumns.length) { if (!(values(lowColumns(k)) > lows(k))) return false; k += 1 }
    k = 0
    while (k < highColumns.length) { if (!(values(highColumns(k)) <= highs(k))) return false; k += 1 }
    true
  }
}

private[layout] object TreeWalk {
  private val Leaf: Byte = 0
  private val Split: Byte = 1
  private val Groups: Byte = 2

  /** The walk of `tree`, its root node 0. */
  def of(tree: TreeLayout): TreeWalk = {
    val nodes = new Nodes
    nodes.add(tree.root)
    nodes.walk
  }

  /** The arrays filled node by node, depth first; a node's children are added after it. */
  private final class Nodes {
    private val kinds, columns, lefts, rights, groupEnds = new ArrayBuffer[Int]
    private val cuts = new ArrayBuffer[Double]
    private val blocks = new ArrayBuffer[Long]
    private val groupChildren = new ArrayBuffer[Int]
    private val lowColumns, highColumns = new ArrayBuffer[Array[Int]]
    private val lows, highs = new ArrayBuffer[Array[Double]]

    def add(node: LayoutNode): Int = {
      val at = kinds.size
      Seq(kinds, columns, lefts, rights, groupEnds).foreach(_ += 0)
      cuts += 0.0
      blocks += 0L
      node match {
        case leaf: io.skipstone.layout.Leaf =>
          kinds(at) = Leaf
          blocks(at) = leaf.block.toLong
        case io.skipstone.layout.Split(column, cut, left, right) =>
          require(!cut.isNaN, s"a split of the layout has no cut (NaN) on column $column")
          kinds(at) = Split
          columns(at) = column
          cuts(at) = cut
          lefts(at) = add(left)
          rights(at) = add(right)
        case GroupSplit(groups, rest) =>
          kinds(at) = Groups
          // a split's groups take consecutive slots, filled as its children are added
          val first = groupChildren.size
          groups.foreach { group =>
            require(!(group.low ++ group.high).exists(_.isNaN), "a group of the layout has a box bound that is no number (NaN)")
            val bounded = group.low.indices
            lowColumns += bounded.filter(d => group.low(d) > Double.NegativeInfinity).toArray
            lows += lowColumns.last.map(group.low(_))
            highColumns += bounded.filter(d => group.high(d) < Double.PositiveInfinity).toArray
            highs += highColumns.last.map(group.high(_))
            groupChildren += -1
          }
          groups.zipWithIndex.foreach { case (group, k) => groupChildren(first + k) = add(group.child) }
          lefts(at) = first
          groupEnds(at) = first + groups.size
          rights(at) = add(rest)
      }
      at
    }

    def walk: TreeWalk = new TreeWalk(kinds.map(_.toByte).toArray, columns.toArray, cuts.toArray, lefts.toArray,
      rights.toArray, blocks.toArray, groupEnds.toArray, groupChildren.toArray, lowColumns.toArray, lows.toArray,
      highColumns.toArray, highs.toArray)
  }
}
