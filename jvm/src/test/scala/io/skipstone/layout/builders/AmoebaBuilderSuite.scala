package io.skipstone.layout.builders

import org.scalatest.funsuite.AnyFunSuite

import io.skipstone.layout.{LayoutNode, Split}

class AmoebaBuilderSuite extends AnyFunSuite {
  private def cuts(node: LayoutNode): Seq[Int] = node match {
    case Split(column, _, left, right) => column +: (cuts(left) ++ cuts(right))
    case _ => Nil
  }
  // four independent columns: x's rank among 4096 rows shuffled differently per column
  private val sample = HandMadeSamples.numeric(Seq(7, 11, 13, 17).zipWithIndex.map { case (step, c) =>
    s"c$c" -> (0 until 4096).map(i => ((i * step + c) % 4096).toDouble) }: _*)

  test("the paper's tree cuts to floor(log2(blocks)) levels and spreads its cuts over the columns") {
    val tree = AmoebaBuilder.build(sample, 512, 4096, None, seed = 0, correlations = false)
    assert(tree.blockIds.size == 8 && tree.root.leaves.map(_.rows).sum == 4096.0)
    assert(cuts(tree.root).distinct.size >= 3) // 7 cuts on 4 columns: no column takes them all
  }

  test("with correlations no node under two blocks is cut") {
    val tree = AmoebaBuilder.build(sample, 1000, 4096, None, seed = 0, correlations = true)
    assert(tree.root.leaves.forall(_.rows >= 1000))
  }

  test("the seed decides ties; the same seed gives the same tree") {
    val trees = (0 until 4).map(s => AmoebaBuilder.build(sample, 512, 4096, None, s, correlations = false).root)
    assert(trees.head == AmoebaBuilder.build(sample, 512, 4096, None, 0, correlations = false).root)
    assert(trees.map(cuts).distinct.size > 1)
  }
}
