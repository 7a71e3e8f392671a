package io.skipstone.layout.builders

/**
 * The builders' chance, bit for bit that of `skipstone.layout.builders.noise`: Amoeba's
 * tie-breaks and the rows the skipping gain measures are decided by hashing what is decided
 * about (a seed, a stream naming the decision, a tree node, a column or a sample row) with
 * splitmix64's mixing function, so Python and the JVM build the same layout from one sample.
 */
object Noise {
  // The streams: which decision a hash is for (the same numbers as Python's).
  val Preference = 1L // Amoeba's tie-break among columns with equal allocation
  val GainRows = 2L // the rows of a node on which a cut's skipping gain is estimated
  val RankedRows = 3L // the rows of the sample whose ranks the skipping gain keeps
  val SampleTrim = 4L // the rows a drawn sample keeps when Spark's Bernoulli sample overshoots

  private val Golden = 0x9E3779B97F4A7C15L

  /** splitmix64's finalizer (Long arithmetic wraps as Python's uint64 arithmetic does). */
  private def mix(z0: Long): Long = {
    val z1 = (z0 ^ (z0 >>> 30)) * 0xBF58476D1CE4E5B9L
    val z2 = (z1 ^ (z1 >>> 27)) * 0x94D049BB133111EBL
    z2 ^ (z2 >>> 31)
  }

  /** The hash of (seed, stream, node, item): h = mix(seed + golden), then h = mix((h ^ key) + golden) per key. */
  def hashed(seed: Long, stream: Long, node: Long, item: Long): Long = next(prefix(seed, stream, node), item)

  private def prefix(seed: Long, stream: Long, node: Long): Long = next(next(mix(seed + Golden), stream), node)
  private def next(h: Long, key: Long): Long = mix((h ^ key) + Golden)

  /** A hash as a number in [0, 1): its top 53 bits. */
  def unit(hash: Long): Double = (hash >>> 11).toDouble / (1L << 53).toDouble

  /**
   * `count` of `rows` (distinct sample rows) chosen uniformly without replacement: those of the
   * smallest hashes (unsigned), in that order; equal hashes keep the order of `rows`.
   */
  def choose(rows: Array[Int], count: Int, seed: Long, stream: Long, node: Long): Array[Int] = {
    // flipping the sign bit orders signed Longs as their unsigned values
    val start = prefix(seed, stream, node)
    val keys = rows.map(r => next(start, r.toLong) ^ Long.MinValue)
    rows.indices.sortBy(keys(_)).take(count).map(rows(_)).toArray
  }
}
