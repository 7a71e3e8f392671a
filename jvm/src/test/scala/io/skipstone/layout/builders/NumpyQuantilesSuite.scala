package io.skipstone.layout.builders

import org.scalatest.funsuite.AnyFunSuite

/** Expected values are numpy 2's (`np.quantile`, `np.unique`) and CPython's (`//`), printed there. */
class NumpyQuantilesSuite extends AnyFunSuite {
  private def same(actual: Array[Double], expected: Seq[Double]): Unit =
    assert(actual.map(java.lang.Double.doubleToLongBits).toSeq == expected.map(java.lang.Double.doubleToLongBits))

  test("linear interpolation between the neighbouring order statistics") {
    // np.quantile([4, 1, 3, 2], [0.25, 0.5, 0.75]) -> [1.75, 2.5, 3.25]
    same(NumpyQuantiles.quantiles(Array(4.0, 1, 3, 2), Array(0.25, 0.5, 0.75)), Seq(1.75, 2.5, 3.25))
    // np.quantile([0.1, 0.7, 0.2], [1/3]) -> 0.16666666666666669 (from the nearer end: a + (b - a) * t)
    same(NumpyQuantiles.quantiles(Array(0.1, 0.7, 0.2), Array(1.0 / 3)), Seq(0.16666666666666669))
    // t >= 0.5 interpolates from the upper neighbour (b - (b - a) * (1 - t)), one ulp above a + (b - a) * t here:
    // np.quantile([0.009954560807291957, 0.41538403737122465, 0.8298039852781027], [0.36504615775827065]) -> 0.3059555061305129
    same(NumpyQuantiles.quantiles(Array(0.009954560807291957, 0.41538403737122465, 0.8298039852781027),
      Array(0.36504615775827065)), Seq(0.3059555061305129))
  }

  test("between -inf (NULL) and +inf (NaN's encoding) a quantile is NaN, as numpy's") {
    // np.quantile([-inf, 1, 2, inf], np.arange(1, 8) / 8) -> [nan, -inf, 1.125, 1.5, 1.875, inf, nan]
    val ninf = Double.NegativeInfinity
    same(NumpyQuantiles.quantiles(Array(ninf, 1, 2, Double.PositiveInfinity), (1 to 7).map(_ / 8.0).toArray),
      Seq(Double.NaN, ninf, 1.125, 1.5, 1.875, Double.PositiveInfinity, Double.NaN))
    // a single -inf: numpy interpolates -inf with itself, which is NaN
    assert(NumpyQuantiles.quantiles(Array(ninf), Array(0.5)).head.isNaN)
  }

  test("one value is every quantile") {
    same(NumpyQuantiles.quantiles(Array(3.0), Array(0.25, 0.75)), Seq(3.0, 3.0))
  }

  test("unique sorts and keeps each value once, NaN once at the end") {
    same(NumpyQuantiles.unique(Array(3.0, Double.NaN, 1, 3, Double.NaN, 2)), Seq(1.0, 2.0, 3.0, Double.NaN))
  }

  test("the block count is Python's float floor division, not floor of the quotient") {
    assert(CurveBuilder.pythonFloorDiv(1.0, 0.1) == 9.0) // math.floor(1.0 / 0.1) is 10
    assert(CurveBuilder.pythonFloorDiv(10.0, 0.01) == 999.0)
    assert(CurveBuilder.pythonFloorDiv(7.0, 2.0) == 3.0)
    assert(CurveBuilder.pythonFloorDiv(4000.0, 500.0) == 8.0)
    assert(CurveBuilder.pythonFloorDiv(-7.0, 2.0) == -4.0)
  }
}
