package io.skipstone.layout.builders

/**
 * `np.quantile` (its default, linear interpolation) and `np.unique` as numpy computes them,
 * operation for operation, so that a curve layout's cell edges are the doubles Python's builder
 * finds. Between -inf (NULL) and +inf (NaN's encoding) the interpolation gives NaN, as numpy's.
 */
object NumpyQuantiles {

  def quantiles(values: Array[Double], levels: Array[Double]): Array[Double] = {
    require(values.nonEmpty, "quantiles of no values")
    val sorted = values.sorted // NaN sorts last, as in numpy
    val n = sorted.length
    if (sorted(n - 1).isNaN) return levels.map(_ => Double.NaN)
    levels.map { q =>
      val virtual = (n - 1) * q
      // numpy's neighbours: the last value above the range (index -1), the first below it
      val previousIndex: Long = if (virtual >= n - 1) -1 else if (virtual < 0) 0 else math.floor(virtual).toLong
      val (a, b) =
        if (previousIndex == -1) (sorted(n - 1), sorted(n - 1))
        else if (virtual < 0) (sorted(0), sorted(0))
        else (sorted(previousIndex.toInt), sorted(previousIndex.toInt + 1))
      lerp(a, b, virtual - previousIndex) // numpy's gamma, from the adjusted index
    }
  }

  /** numpy's `_lerp`: from the nearer end, so that t = 1 gives b exactly. */
  private def lerp(a: Double, b: Double, t: Double): Double = {
    val diff = b - a
    if (t >= 0.5) b - diff * (1 - t) else a + diff * t
  }

  /** The sorted distinct values (`np.unique`), NaN once at the end. */
  def unique(values: Array[Double]): Array[Double] = {
    val sorted = values.sorted
    sorted.indices.collect { case i if i == 0 || !(sorted(i) == sorted(i - 1) || (sorted(i).isNaN && sorted(i - 1).isNaN)) =>
      sorted(i) }.toArray
  }
}
