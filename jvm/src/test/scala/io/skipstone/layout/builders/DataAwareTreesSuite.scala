package io.skipstone.layout.builders

import org.scalatest.funsuite.AnyFunSuite

import io.skipstone.layout.{Leaf, Split}

class DataAwareTreesSuite extends AnyFunSuite {
  private val sample = HandMadeSamples.numeric("x" -> (0 until 8).map(_.toDouble), "y" -> (0 until 8).map(i => (i % 4).toDouble))

  test("the k-d tree cuts at medians, columns round robin by depth, leaves numbered depth first") {
    val tree = DataAwareTrees.kdTree(sample, 2, 8, None)
    assert(tree.root == Split(0, 3.0, Split(1, 1.0, Leaf(0, 2.0), Leaf(1, 2.0)), Split(1, 1.0, Leaf(2, 2.0), Leaf(3, 2.0))))
  }

  test("a column that cannot cut a node gives way to the next one") {
    val constantFirst = HandMadeSamples.numeric("c" -> Seq.fill(8)(1.0), "x" -> (0 until 8).map(_.toDouble))
    val tree = DataAwareTrees.kdTree(constantFirst, 4, 8, None)
    assert(tree.root == Split(1, 3.0, Leaf(0, 4.0), Leaf(1, 4.0)))
  }

  test("range partitioning cuts one column into ranges of equal rows") {
    val tree = DataAwareTrees.rangeTree(sample, "x", 2, 8)
    assert(tree.root.leaves.map(_.rows) == Seq(2.0, 2.0, 2.0, 2.0))
    assert(tree.blockIds == Seq(0, 1, 2, 3))
  }

  test("leaves count table rows: the sample's rows times the rows each stands for") {
    val tree = DataAwareTrees.kdTree(sample, 30, 80, Some(Seq("x")))
    assert(tree.root.leaves.map(_.rows) == Seq(40.0, 40.0))
  }

  test("a node one row short of two blocks stays a block") {
    assert(DataAwareTrees.kdTree(sample, 4.5, 8, None).root == Leaf(0, 8.0))
    assert(DataAwareTrees.kdTree(sample, 4, 8, None).root.leaves.size == 2)
  }

  test("an unknown layout column is refused by name") {
    assert(intercept[IllegalArgumentException](DataAwareTrees.rangeTree(sample, "z", 2, 8)).getMessage ==
      "unknown layout column 'z'; known: x, y")
    assert(intercept[IllegalArgumentException](DataAwareTrees.kdTree(sample, 2, 8, Some(Nil))).getMessage ==
      "columns must name at least one layout column")
  }
}
