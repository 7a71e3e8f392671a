package io.skipstone.metadata

import org.apache.spark.sql.vectorized.ColumnVector
import org.apache.spark.unsafe.types.UTF8String

/**
 * File path → position in the version, over the path column itself: an open-addressing table
 * of positions (4 bytes a slot, two slots a file) instead of a map of strings, plus each
 * path's hash (4 bytes a file), so a probe compares paths (which share long prefixes) only
 * when their hashes agree.
 */
final class PathIndex(paths: ColumnVector, count: Int) {
  private val hashes: Array[Int] = Array.tabulate(count)(i => if (paths.isNullAt(i)) 0 else paths.getUTF8String(i).hashCode())

  private var sawDuplicate = false

  private val slots: Array[Int] = {
    val size = Integer.highestOneBit(math.max(4, count * 2 - 1)) << 1
    val table = Array.fill(size)(-1)
    var i = 0
    while (i < count) {
      if (!paths.isNullAt(i)) {
        var slot = slotOf(hashes(i), size)
        while (table(slot) >= 0 && !same(table(slot), hashes(i), paths.getUTF8String(i))) slot = (slot + 1) & (size - 1)
        if (table(slot) < 0) table(slot) = i // a path listed twice keeps its first row
        else sawDuplicate = true
      }
      i += 1
    }
    table
  }

  private def slotOf(h: Int, size: Int): Int = (h ^ (h >>> 16)) & (size - 1)

  private def same(position: Int, hash: Int, path: UTF8String): Boolean =
    hashes(position) == hash && paths.getUTF8String(position) == path

  /** The position of `path` (canonical), or -1. */
  def apply(path: UTF8String): Int = {
    val hash = path.hashCode()
    var slot = slotOf(hash, slots.length)
    while (slots(slot) >= 0) {
      if (same(slots(slot), hash, path)) return slots(slot)
      slot = (slot + 1) & (slots.length - 1)
    }
    -1
  }

  /** Whether some path has two rows: only the first is ever answered. */
  def hasDuplicates: Boolean = sawDuplicate

  def bytes: Long = slots.length * 4L + hashes.length * 4L
}
