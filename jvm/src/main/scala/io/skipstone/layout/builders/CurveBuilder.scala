package io.skipstone.layout.builders

import io.skipstone.layout.{CurveBlock, CurveKeys, CurveLayout}

/**
 * Z-order and Hilbert layouts, as `skipstone.layout.curves` and `curve_specs` build them: each
 * curve column is cut into at most 2^bits cells at sample quantiles (numpy's, [[NumpyQuantiles]]),
 * rows are ordered by the curve key of their cells, and the key range is cut into blocks of equal
 * sample rows; a block is described by the bounding box of the sample rows it holds.
 */
object CurveBuilder {
  val Curves: Seq[String] = Seq("zorder", "hilbert")
  /** Routing tests every cut point of a column: 8 bits is 255 cut points per column. */
  val MaxBits = 8

  /**
   * Enough cells that every block spans few of them on each column (8 per block and column
   * beyond the cells the blocks need), within [[MaxBits]] and a 63-bit key.
   */
  def defaultBits(blocks: Double, columns: Int): Int = {
    val need = math.ceil(log2(math.max(blocks, 2.0)) / columns).toInt + 3
    math.max(1, math.min(math.min(need, MaxBits), 63 / columns))
  }

  /** log2 exact at powers of two (where `defaultBits` can land on a whole number of bits), as C's log2 is. */
  private def log2(x: Double): Double = {
    val exponent = java.lang.Math.getExponent(x)
    val mantissa = x / java.lang.Math.scalb(1.0, exponent)
    if (mantissa == 1.0) exponent.toDouble else exponent + math.log(mantissa) / math.log(2.0)
  }

  def build(sample: EncodedSample, curve: String, blockRows: Double, totalRows: Double, columns: Option[Seq[String]],
            bits: Int): CurveLayout = {
    if (!Curves.contains(curve)) throw new IllegalArgumentException(s"unknown curve '$curve'; use one of ${Curves.mkString(", ")}")
    MedianCut.checkBlockRows(blockRows)
    val scale = MedianCut.sampleScale(sample.rows, totalRows)
    val chosen = DataAwareTrees.columnIndexes(sample, columns)
    if (bits < 1 || bits * chosen.size > 63) {
      throw new IllegalArgumentException(s"bits=$bits over ${chosen.size} columns does not fit a 63-bit curve key")
    }
    val levels = Array.range(1, 1 << bits).map(_.toDouble / (1 << bits))
    val all = Array.range(0, sample.rows)
    // Between -inf (NULL) and +inf (NaN) a quantile interpolates to NaN: no value sorts there.
    val edges = chosen.map(c => NumpyQuantiles.unique(NumpyQuantiles.quantiles(sample.values(c, all), levels)).filterNot(_.isNaN))
    val blocks = math.max(1, pythonFloorDiv(sample.rows * scale, blockRows).toLong)
    val keys = all.map(r => key(curve, chosen.zip(edges).map { case (c, e) => cell(e, sample.columns(c)(r)) }.toArray, bits))
    val sorted = keys.sorted
    // block k ends with the last key of its share of the sorted sample; the last block is open above
    val cuts = (1L until blocks).map { k =>
      sorted(math.min(math.max(k * sorted.length / blocks - 1, 0L), sorted.length - 1L).toInt)
    }.toArray.distinct.sorted
    val positions = keys.map(k => below(cuts.length, cuts(_) < k))
    val count = cuts.length + 1
    val (low, high) = boundingBoxes(sample, positions, count)
    val rows = Array.fill(count)(0L)
    positions.foreach(p => rows(p) += 1)
    CurveLayout(sample.schema, curve, chosen, bits, edges.map(_.toSeq), cuts.map(BigInt(_)).toSeq :+ UnsignedMax,
      (0 until count).map(b => CurveBlock(rows(b).toDouble * scale, low(b).toSeq, high(b).toSeq)))
  }

  private val UnsignedMax = BigInt(2).pow(64) - 1

  private def key(curve: String, codes: Array[Long], bits: Int): Long =
    if (curve == "zorder") CurveKeys.zorder(codes, bits) else CurveKeys.hilbert(codes, bits)

  /** How many edges lie strictly below v (numpy's searchsorted, side left). */
  private def cell(edges: Array[Double], v: Double): Long = below(edges.length, edges(_) < v).toLong

  /** How many of `size` sorted items are below a value, given the test "item i is below it". */
  private def below(size: Int, isBelow: Int => Boolean): Int = {
    var lo = 0 // a binary search's bounds, local
    var hi = size
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (isBelow(mid)) lo = mid + 1 else hi = mid
    }
    lo
  }

  /**
   * Per block, the smallest box (low, high] holding its sample rows over every schema column: low
   * is just below the smallest value; an empty block gets the empty box (max double, -inf).
   */
  private def boundingBoxes(sample: EncodedSample, positions: Array[Int], blocks: Int): (Array[Array[Double]], Array[Array[Double]]) = {
    val low = Array.fill(blocks, sample.width)(Double.PositiveInfinity)
    val high = Array.fill(blocks, sample.width)(Double.NegativeInfinity)
    for (r <- positions.indices; c <- 0 until sample.width) {
      val v = sample.columns(c)(r)
      low(positions(r))(c) = math.min(low(positions(r))(c), v)
      high(positions(r))(c) = math.max(high(positions(r))(c), v)
    }
    (low.map(_.map(math.nextDown)), high)
  }

  /**
   * Python's float floor division a // b (CPython's float_floor_div): fmod, then the quotient
   * of the difference, snapped to the nearest whole number. It can differ from floor(a / b)
   * (1.0 // 0.1 is 9.0), and the block count must be Python's.
   */
  private[builders] def pythonFloorDiv(a: Double, b: Double): Double = {
    var mod = a % b // CPython's own steps, in order (locals only)
    var div = (a - mod) / b
    if (mod != 0) {
      if ((b < 0) != (mod < 0)) { mod += b; div -= 1.0 }
    }
    if (div != 0) {
      val floorDiv = math.floor(div)
      if (div - floorDiv > 0.5) floorDiv + 1.0 else floorDiv
    } else java.lang.Math.copySign(0.0, a / b)
  }
}
