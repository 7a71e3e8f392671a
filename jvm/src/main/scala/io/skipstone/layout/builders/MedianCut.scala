package io.skipstone.layout.builders

/**
 * The cut that halves a set of values, robust to duplicates (Amoeba §3.3), and the sizing rules
 * the tree builders share; `skipstone.layout.builders.median` in Python, value for value.
 */
object MedianCut {

  /**
   * A cut c with some values <= c and some > c, sending as close to half as possible left; None
   * when fewer than two values or all equal, so that no cut separates them.
   */
  def of(values: Array[Double]): Option[Double] =
    if (values.length < 2) None else { val (cut, cuttable) = withCuttable(values); if (cuttable) Some(cut) else None }

  /**
   * The cut and whether it separates any values: the middle value ((n-1)/2-th smallest), or the
   * largest value below it when that sends closer to half the values left (a run of duplicates
   * straddling the middle) or when the middle is the maximum.
   */
  def withCuttable(values: Array[Double]): (Double, Boolean) = {
    val sorted = values.sorted
    val n = sorted.length
    val middle = sorted((n - 1) / 2)
    val firstMiddle = firstAbove(sorted, middle, inclusive = false)
    val below = if (firstMiddle > 0) sorted(firstMiddle - 1) else Double.NegativeInfinity
    val leftMiddle = firstAbove(sorted, middle, inclusive = true)
    val leftBelow = firstAbove(sorted, below, inclusive = true)
    val useBelow = (leftBelow > 0 && math.abs(leftBelow - n / 2.0) < math.abs(leftMiddle - n / 2.0)) || leftMiddle == n
    val left = if (useBelow) leftBelow else leftMiddle
    (if (useBelow) below else middle, left > 0 && left < n)
  }

  /** How many of the sorted values are below `v` (or at most `v` when inclusive). */
  private def firstAbove(sorted: Array[Double], v: Double, inclusive: Boolean): Int = {
    var lo = 0 // a binary search's bounds, local
    var hi = sorted.length
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (sorted(mid) < v || (inclusive && sorted(mid) == v)) lo = mid + 1 else hi = mid
    }
    lo
  }

  /** How many table rows one sample row stands for. */
  def sampleScale(sampleRows: Int, totalRows: Double): Double = {
    if (sampleRows <= 0) throw new IllegalArgumentException("the data sample is empty")
    if (totalRows < sampleRows) {
      throw new IllegalArgumentException(s"total_rows=$totalRows is smaller than the sample ($sampleRows rows)")
    }
    totalRows / sampleRows
  }

  /** Whether a node of `sampleRows` sample rows holds fewer than two blocks' table rows: cutting it would leave a block smaller than asked for. */
  def tooSmallToCut(sampleRows: Int, scale: Double, blockRows: Double): Boolean = sampleRows * scale < 2 * blockRows

  def checkBlockRows(blockRows: Double): Unit =
    if (!(blockRows > 0)) throw new IllegalArgumentException(s"block_rows must be positive, got $blockRows")
}
