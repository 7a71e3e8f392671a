package io.skipstone.metadata

import org.apache.spark.sql.vectorized.ColumnVector
import org.apache.spark.unsafe.types.UTF8String

/**
 * File path → position in the version, over the path column itself: an open-addressing table
 * of positions (4 bytes a slot, two slots a file) instead of a map of strings.
 */
final class PathIndex(paths: ColumnVector, count: Int) {
  private val slots: Array[Int] = {
    val size = Integer.highestOneBit(math.max(4, count * 2 - 1)) << 1
    val table = Array.fill(size)(-1)
    var i = 0
    while (i < count) {
      if (!paths.isNullAt(i)) {
        var slot = slotOf(paths.getUTF8String(i), size)
        while (table(slot) >= 0 && paths.getUTF8String(table(slot)) != paths.getUTF8String(i)) slot = (slot + 1) & (size - 1)
        if (table(slot) < 0) table(slot) = i // a path listed twice keeps its first row
      }
      i += 1
    }
    table
  }

  private def slotOf(path: UTF8String, size: Int): Int = {
    val h = path.hashCode()
    (h ^ (h >>> 16)) & (size - 1)
  }

  /** The position of `path` (canonical), or -1. */
  def apply(path: UTF8String): Int = {
    var slot = slotOf(path, slots.length)
    while (slots(slot) >= 0) {
      if (paths.getUTF8String(slots(slot)) == path) return slots(slot)
      slot = (slot + 1) & (slots.length - 1)
    }
    -1
  }

  def bytes: Long = slots.length * 4L
}
