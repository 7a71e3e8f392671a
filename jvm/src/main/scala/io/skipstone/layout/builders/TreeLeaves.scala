package io.skipstone.layout.builders

import io.skipstone.layout.{Group, GroupSplit, Leaf, LayoutNode, Split}

/** What the tree builders share about leaves: a tree's blocks are its leaves, numbered depth first. */
object TreeLeaves {

  /** The same tree with leaves numbered first, first + 1, ... depth first, left before right. */
  def numbered(root: LayoutNode, first: Int = 0): LayoutNode = number(root, first)._1

  private def number(node: LayoutNode, next: Int): (LayoutNode, Int) = node match {
    case leaf: Leaf => (leaf.copy(block = next), next + 1)
    case Split(column, cut, left, right) =>
      val (l, afterLeft) = number(left, next)
      val (r, afterRight) = number(right, afterLeft)
      (Split(column, cut, l, r), afterRight)
    case GroupSplit(groups, rest) =>
      val (numberedGroups, afterGroups) = groups.foldLeft((Vector.empty[Group], next)) { case ((done, n), g) =>
        val (child, after) = number(g.child, n)
        (done :+ g.copy(child = child), after)
      }
      val (r, afterRest) = number(rest, afterGroups)
      (GroupSplit(numberedGroups, r), afterRest)
  }
}
