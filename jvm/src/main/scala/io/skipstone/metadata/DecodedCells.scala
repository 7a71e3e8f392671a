package io.skipstone.metadata

import java.util.{Collections, IdentityHashMap}
import java.util.concurrent.atomic.AtomicLong

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Objects decoded from one metadata column (say, bloom filters from their bytes), kept for as
 * long as the metadata version is cached, so each cell is decoded once per version instead of
 * once per query. Keyed by row identity: the clause is evaluated on the version's own row
 * objects. A JVM-wide byte budget bounds the memory; past it, cells are decoded every time.
 */
final class DecodedCells {
  private val cells = Collections.synchronizedMap(new IdentityHashMap[InternalRow, AnyRef]())

  /** `decode` gives the object and its size in bytes, or None for a NULL cell (not cached). */
  def getOrDecode(row: InternalRow)(decode: => Option[(AnyRef, Long)]): Option[AnyRef] =
    Option(cells.get(row)).orElse(decode.map { case (value, sizeBytes) =>
      if (DecodedCells.reserve(sizeBytes)) cells.put(row, value)
      value
    })
}

object DecodedCells {
  private val BudgetBytes = 512L * 1024 * 1024
  private val used = new AtomicLong(0L)

  // Entries live as long as their metadata version; a slowly leaking budget only stops caching.
  private def reserve(bytes: Long): Boolean = used.addAndGet(bytes) <= BudgetBytes || {
    used.addAndGet(-bytes)
    false
  }
}
