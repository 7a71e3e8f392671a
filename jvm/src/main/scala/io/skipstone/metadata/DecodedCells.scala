package io.skipstone.metadata

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

/**
 * Objects decoded from one metadata column (say, bloom filters from their bytes), kept for as
 * long as the metadata version is cached, so each cell is decoded once per version instead of
 * once per query, and only when a query needs it. Keyed by the file's position in its version.
 * A JVM-wide byte budget bounds the memory; past it, cells are decoded every time. A version
 * leaving the cache gives its share of the budget back ([[release]]) and caches no more.
 */
final class DecodedCells {
  private val cells = new ConcurrentHashMap[Integer, AnyRef]()
  // Guarded by `this`: keeping a cell, its bytes and the released flag change together.
  private var reserved = 0L
  private var released = false

  /** `decode` gives the object and its size in bytes, or None for a NULL cell (not cached). */
  def getOrDecode(file: Int)(decode: => Option[(AnyRef, Long)]): Option[AnyRef] =
    Option(cells.get(file)).orElse(decode.map { case (value, sizeBytes) => keep(file, value, sizeBytes) })

  private def keep(file: Int, value: AnyRef, sizeBytes: Long): AnyRef = synchronized {
    if (released || cells.containsKey(file) || !DecodedCells.reserve(sizeBytes)) value
    else {
      cells.put(file, value)
      reserved += sizeBytes
      value
    }
  }

  /** Cells decoded and kept so far, and the bytes they hold. */
  def size: Int = cells.size
  def bytes: Long = synchronized(reserved)

  /** Forgets every cell and returns their bytes to the JVM-wide budget. */
  def release(): Unit = synchronized {
    released = true
    cells.clear()
    DecodedCells.giveBack(reserved)
    reserved = 0L
  }
}

object DecodedCells {
  private val BudgetBytes = 512L * 1024 * 1024
  private val used = new AtomicLong(0L)

  /** Bytes of decoded cells held by all cached versions together. */
  def usedBytes: Long = used.get

  private def reserve(bytes: Long): Boolean = used.addAndGet(bytes) <= BudgetBytes || {
    used.addAndGet(-bytes)
    false
  }

  private def giveBack(bytes: Long): Unit = used.addAndGet(-bytes)
}
