package io.skipstone.query

import java.util.stream.IntStream

/**
 * Work over `0 until count` split into contiguous chunks run on the driver's cores: the pure,
 * per-file part of pruning a listing of a million files (spelling paths, finding them in the
 * version) is most of planning, and one core would do it alone.
 */
object Chunks {
  /** Below this many items one thread is quicker than handing out work. */
  private val ParallelFrom = 16384

  /** Calls `body(from, until)` once per chunk, chunks in parallel; each chunk runs in order. */
  def foreach(count: Int)(body: (Int, Int) => Unit): Unit =
    if (count < ParallelFrom) body(0, count)
    else {
      val chunks = math.min(count / (ParallelFrom / 4), Runtime.getRuntime.availableProcessors * 4)
      IntStream.range(0, chunks).parallel().forEach { c =>
        body((count.toLong * c / chunks).toInt, (count.toLong * (c + 1) / chunks).toInt)
      }
    }
}
