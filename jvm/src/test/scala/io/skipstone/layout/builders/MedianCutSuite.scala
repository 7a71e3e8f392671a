package io.skipstone.layout.builders

import org.scalatest.funsuite.AnyFunSuite

class MedianCutSuite extends AnyFunSuite {

  test("the cut balances Amoeba's skewed example: the run of 2s goes left with the 1s") {
    // D1 = {1,1,1,2,2,2,3,4,5,6,7,8}: the middle value 2 sends six of twelve left
    assert(MedianCut.of(Array(1, 1, 1, 2, 2, 2, 3, 4, 5, 6, 7, 8).map(_.toDouble)).contains(2.0))
  }

  test("a run of duplicates straddling the middle is cut below it when that is closer to half") {
    // the middle value 5 would send 9 of 10 left; the value below it sends 1 of 10
    assert(MedianCut.withCuttable(Array(1.0, 5, 5, 5, 5, 5, 5, 5, 5, 9)) == ((5.0, true)))
    assert(MedianCut.withCuttable(Array(1.0, 1, 5, 5, 5, 5, 5, 5, 5, 9)) == ((1.0, true)))
  }

  test("when the middle is the maximum, the cut is the value below it") {
    assert(MedianCut.of(Array(1.0, 7, 7, 7)).contains(1.0))
  }

  test("equal values, a single value or none cannot be cut") {
    assert(MedianCut.of(Array(4.0, 4.0, 4.0)).isEmpty)
    assert(MedianCut.of(Array(4.0)).isEmpty)
    assert(MedianCut.of(Array.empty[Double]).isEmpty)
    assert(MedianCut.withCuttable(Array(Double.NegativeInfinity, Double.NegativeInfinity)) ==
      ((Double.NegativeInfinity, false)))
  }

  test("NULL (-inf) and NaN (+inf) are values like any other: NULLs can be cut off") {
    val ninf = Double.NegativeInfinity
    assert(MedianCut.of(Array(ninf, ninf, ninf, 1.0, Double.PositiveInfinity)).contains(ninf))
  }

  test("a node is too small to cut below two blocks' rows, counted in table rows") {
    assert(MedianCut.tooSmallToCut(199, 1.0, 100.0))
    assert(!MedianCut.tooSmallToCut(200, 1.0, 100.0))
    assert(!MedianCut.tooSmallToCut(40, 5.0, 100.0))
  }

  test("a sample stands for the table's rows, and cannot hold more rows than it") {
    assert(MedianCut.sampleScale(100, 750.0) == 7.5)
    assert(intercept[IllegalArgumentException](MedianCut.sampleScale(100, 50.0)).getMessage ==
      "total_rows=50.0 is smaller than the sample (100 rows)")
    assert(intercept[IllegalArgumentException](MedianCut.sampleScale(0, 50.0)).getMessage == "the data sample is empty")
    assert(intercept[IllegalArgumentException](MedianCut.checkBlockRows(0)).getMessage.contains("block_rows must be positive"))
  }
}
