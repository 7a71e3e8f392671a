package io.skipstone.layout.builders

import org.scalatest.funsuite.AnyFunSuite

class CurveBuilderSuite extends AnyFunSuite {

  test("default bits: a few cells per block and column beyond what the blocks need, at most 8") {
    // Python's default_bits(100, 4), default_bits(8, 8), default_bits(10**6, 2)
    assert(Seq(CurveBuilder.defaultBits(100, 4), CurveBuilder.defaultBits(8, 8), CurveBuilder.defaultBits(1e6, 2)) == Seq(5, 4, 8))
    // log2(8) / 3 is exactly 1: one bit needed, not two
    assert(CurveBuilder.defaultBits(8, 3) == 4)
  }

  test("a 4096-row sample in blocks of 512 rows is 8 blocks holding every row") {
    val sample = HandMadeSamples.numeric("x" -> (0 until 4096).map(i => (i * 37 % 4096).toDouble),
      "y" -> (0 until 4096).map(i => (i % 64).toDouble))
    for (curve <- CurveBuilder.Curves) {
      val layout = CurveBuilder.build(sample, curve, 512, 4096, None, 5)
      assert(layout.blocks.size == 8 && layout.blocks.map(_.rows).sum == 4096.0)
      assert(layout.edges.map(_.size) == Seq(31, 31)) // 2^5 cells: 31 cut points per column
      assert(layout.boundaries.last == BigInt(2).pow(64) - 1)
    }
  }

  test("a block's box is (just below its smallest value, its largest value] in every column") {
    val sample = HandMadeSamples.numeric("x" -> Seq(1.0, 2, 3, 4), "z" -> Seq(10.0, 20, 30, 40))
    val layout = CurveBuilder.build(sample, "zorder", 2, 4, Some(Seq("x")), 1)
    assert(layout.blocks.map(b => (b.low.map(math.nextUp), b.high)) == Seq((Seq(1.0, 10.0), Seq(2.0, 20.0)),
      (Seq(3.0, 30.0), Seq(4.0, 40.0))))
  }

  test("NULLs (-inf) leave no NaN edge, and one value leaves no edge at all") {
    val ninf = Double.NegativeInfinity
    val sample = HandMadeSamples.numeric("x" -> Seq(ninf, ninf, ninf, 1, 2, 3), "c" -> Seq.fill(6)(7.0))
    val layout = CurveBuilder.build(sample, "hilbert", 2, 6, None, 2)
    assert(layout.edges.forall(_.forall(e => !e.isNaN)))
    assert(layout.edges(1) == Seq(7.0))
  }

  test("bits that do not fit a 63-bit key are refused, naming them") {
    val sample = HandMadeSamples.numeric("x" -> Seq(1.0, 2), "y" -> Seq(1.0, 2))
    assert(intercept[IllegalArgumentException](CurveBuilder.build(sample, "zorder", 1, 2, None, 32)).getMessage ==
      "bits=32 over 2 columns does not fit a 63-bit curve key")
  }
}
