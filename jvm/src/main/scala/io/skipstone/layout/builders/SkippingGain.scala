package io.skipstone.layout.builders

/**
 * What a median cut is worth to point queries when files are skipped by their min/max of every
 * column: `skipstone.layout.builders.skipping_gain`, value for value (its doc says why Amoeba
 * ranks cuts by it). A node's *width* in a column is the share of the sample whose value lies
 * within the node's min/max there; a cut's gain is how much it lowers the rows a point query on
 * each column reads, summed over the measured columns.
 *
 * Ranks are float32 as Python keeps them; widths are float32 differences whose sum in double is
 * exact whatever the order, so the gains are the doubles Python computes.
 *
 * @param columns the measured columns (indexes into the sample's schema)
 */
final class SkippingGain(sample: EncodedSample, columns: Seq[Int], seed: Long) {
  import SkippingGain._

  // Ranks are kept for at most RankedRows sample rows; position(row) is its place among them (-1: not ranked).
  private val ranked: Array[Int] = {
    val all = Array.range(0, sample.rows)
    if (sample.rows <= RankedRows) all else Noise.choose(all, RankedRows, seed, Noise.RankedRows, 0).sorted
  }
  private val position: Array[Int] = {
    val p = Array.fill(sample.rows)(-1)
    ranked.indices.foreach(i => p(ranked(i)) = i)
    p
  }
  // per measured column, per ranked row: the share of the ranked rows below its value, and at or below it
  private val (below, upto): (Array[Array[Float]], Array[Array[Float]]) = columns.map(c => ranks(sample.values(c, ranked))).toArray.unzip

  /**
   * `cutColumns` by the gain of a median cut on each at the node (a heap position, naming the
   * node for the choice of rows to measure) holding sample `rows`, best first; a column that
   * cannot cut there goes last. Gains within `Tie` of the best keep the order given.
   */
  def ranked(rows: Array[Int], cutColumns: Seq[Int], node: Long): Seq[Int] = {
    val measured = rows.filter(position(_) >= 0)
    if (measured.length < MinRows) return cutColumns // too few rows to measure: the caller's order
    val chosen = if (measured.length > GainRows) Noise.choose(measured, GainRows, seed, Noise.GainRows, node) else measured
    val g = gains(chosen, cutColumns)
    val best = g.max
    val near = cutColumns.indices.filter(i => !g(i).isInfinite && !g(i).isNaN && g(i) >= best - Tie * math.abs(best))
    // compared as Python compares floats (-0.0 == 0.0), and stable as its sort
    val rest = cutColumns.indices.filterNot(near.contains).sortBy(i => -g(i))(Ordering.Double.IeeeOrdering)
    (near ++ rest).map(cutColumns(_))
  }

  /** Per cut column, the point-query rows a median cut on it saves at the node of `rows` (-inf: it cannot cut there). */
  def gains(rows: Array[Int], cutColumns: Seq[Int]): Array[Double] = {
    val at = rows.map(position(_))
    val all = Array.fill(rows.length)(true)
    val readAll = read(at, all)
    cutColumns.map { c =>
      val keys = sample.values(c, rows)
      val (cut, cuttable) = MedianCut.withCuttable(keys)
      if (!cuttable) Double.NegativeInfinity
      else {
        val left = keys.map(_ <= cut)
        val right = left.map(!_)
        val leftShare = left.count(identity).toDouble / rows.length
        val rightShare = right.count(identity).toDouble / rows.length
        readAll - leftShare * read(at, left) - rightShare * read(at, right)
      }
    }.toArray
  }

  /** The sum over measured columns of the width of the masked rows: the share of the table a point query reads from them. */
  private def read(at: Array[Int], mask: Array[Boolean]): Double =
    below.indices.map { j =>
      var low = Float.PositiveInfinity // a min and a max over the masked rows, local
      var high = Float.NegativeInfinity
      var i = 0
      while (i < at.length) {
        if (mask(i)) { low = math.min(low, below(j)(at(i))); high = math.max(high, upto(j)(at(i))) }
        i += 1
      }
      math.max(high - low, 0f).toDouble
    }.sum
}

object SkippingGain {
  /** Gains within this fraction of the best are a tie (they are estimates from a sample). */
  val Tie = 0.03
  /** Gains are estimated on at most this many of a node's sample rows, and not below MinRows. */
  val GainRows = 4096
  val MinRows = 16
  /** Ranks are computed for at most this many sample rows. */
  val RankedRows = 200000

  /** Per value, the share of the values that are smaller, and that are smaller or equal (float32, as Python keeps them). */
  private def ranks(values: Array[Double]): (Array[Float], Array[Float]) = {
    val n = values.length
    val order = values.indices.sortBy(values(_))(Ordering.Double.TotalOrdering) // runs of equal values are all that matters, not the order within them
    val below = new Array[Float](n)
    val upto = new Array[Float](n)
    var start = 0 // the first index of the current run of equal values, local
    while (start < n) {
      var end = start + 1
      while (end < n && values(order(end)) == values(order(start))) end += 1
      (start until end).foreach { k => below(order(k)) = (start.toDouble / n).toFloat; upto(order(k)) = (end.toDouble / n).toFloat }
      start = end
    }
    (below, upto)
  }
}
