package io.skipstone.layout

/**
 * Space-filling-curve keys of one row's per-column cell codes, bit for bit those of
 * `skipstone.layout.curves`: a curve layout's block boundaries come from the keys of its sample
 * (computed in Python or by [[io.skipstone.layout.builders.CurveBuilder]]), so every row must
 * get the same key here to land in the block the layout says.
 */
object CurveKeys {

  /** Interleaves the codes' bits, most significant first, column 0 first within a level. */
  def zorder(codes: Array[Long], bits: Int): Long = {
    var key = 0L // a local accumulator, nothing shared
    var b = bits - 1
    while (b >= 0) {
      var d = 0
      while (d < codes.length) {
        key = (key << 1) | ((codes(d) >>> b) & 1L)
        d += 1
      }
      b -= 1
    }
    key
  }

  /** The Hilbert index by Skilling's transpose algorithm ("Programming the Hilbert curve", 2004). */
  def hilbert(codes: Array[Long], bits: Int): Long = {
    val x = codes.clone()
    val dims = x.length
    var q = 1L << (bits - 1)
    while (q > 1) { // inverse undo of the excess work
      val p = q - 1
      var i = 0
      while (i < dims) {
        if ((x(i) & q) != 0) x(0) ^= p
        else {
          val t = (x(0) ^ x(i)) & p
          x(0) ^= t
          x(i) ^= t
        }
        i += 1
      }
      q >>>= 1
    }
    var i = 1
    while (i < dims) { x(i) ^= x(i - 1); i += 1 } // Gray encode
    var t = 0L
    q = 1L << (bits - 1)
    while (q > 1) {
      if ((x(dims - 1) & q) != 0) t ^= q - 1
      q >>>= 1
    }
    i = 0
    while (i < dims) { x(i) ^= t; i += 1 }
    zorder(x, bits)
  }
}

