package io.skipstone.sketch

import java.io.ByteArrayOutputStream

import org.apache.spark.util.sketch.BloomFilter

/** Creating and (de)serialising the bloom filters stored as metadata (Spark's own format). */
object BloomFilters {
  def create(expectedItems: Long, fpp: Double): BloomFilter =
    BloomFilter.create(math.max(expectedItems, 1L), fpp)

  def toBytes(filter: BloomFilter): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    filter.writeTo(out)
    out.toByteArray
  }

  def fromBytes(bytes: Array[Byte]): BloomFilter = BloomFilter.readFrom(bytes)
}
