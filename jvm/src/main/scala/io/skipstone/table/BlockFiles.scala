package io.skipstone.table

import scala.collection.mutable.ArrayBuffer
import scala.util.Try
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Literal, Murmur3Hash}
import org.apache.spark.sql.functions.{coalesce, col, lit, try_element_at, typedLit}

import io.skipstone.encryption.ParquetFooters
import io.skipstone.metadata.{FileIdentity, FilePaths}

/**
 * Writes rows into one file per block with Spark's Parquet writer (several files when a block
 * holds more than `maxRowsPerFile` rows): into a staging directory this writer alone owns, then
 * renamed into the root as `b<block>-<Spark's part name>`. Spark's own listing reads only files
 * directly in a directory without partition columns, so plain readers need them there; a rename
 * keeps the size and modification time.
 *
 * Spark's hash partitioning sends a key to partition `pmod(murmur3(key), n)`; for each block a
 * key that lands on the block's own partition is found once, on the driver, so a repartition by
 * it gives every block one task. Nothing depends on this for correctness: every row is written
 * exactly once, and a part file's partition names its block (partition p > 0: the p-th block).
 */
object BlockFiles {
  /** A file written and moved into the root. @param path canonical absolute URI, as metadata spells it */
  final case class Written(path: String, name: String, identity: FileIdentity, block: Long)

  private val PartFile = """part-(\d{5,})-.*""".r
  private val BlockFile = """b\d+-.*""".r

  /** Whether a file in a table's root is named as this writer names block files (`b<block>-part-...`). */
  def isBlockFile(name: String): Boolean = BlockFile.pattern.matcher(name).matches()
  private val KeyColumn = "__skipstone_block_key"

  /**
   * Writes `routed`, rows that carry their block in the long column `blockColumn` (as
   * `LayoutRouting.withBlock` adds it); that column is not written. A row whose block is not in
   * `blocks`, or NULL, fails the write before anything is committed.
   *
   * @return the files moved into the root; if moving one fails, those already moved are deleted
   */
  def writeRouted(session: SparkSession, routed: DataFrame, blockColumn: String, blocks: Seq[Long], staging: Path,
                  root: String, maxRowsPerFile: Long): Seq[Written] = {
    // Partition 0 takes the rows that belong to no block being written: Spark writes a file for
    // partition 0 even when it is empty (to keep the schema of an empty input), never for others.
    val keys = partitionKeys(blocks.size + 1)
    val keyOf = typedLit(blocks.zipWithIndex.map { case (b, i) => b -> keys(i + 1) }.toMap)
    val keyed = routed.withColumn(KeyColumn, coalesce(try_element_at(keyOf, col(quoted(blockColumn))), lit(keys(0))))
    keyed.repartition(blocks.size + 1, col(KeyColumn)).drop(KeyColumn, blockColumn)
      .write.option("maxRecordsPerFile", math.max(1L, maxRowsPerFile)).parquet(staging.toString)

    val conf = session.sessionState.newHadoopConf()
    val fs = staging.getFileSystem(conf)
    val parts = fs.listStatus(staging).toSeq.map(_.getPath).filter(p => PartFile.pattern.matcher(p.getName).matches())
    def partitionOf(part: Path): Int = { val PartFile(partition) = part.getName; partition.toInt }
    val (stray, ofBlocks) = parts.partition(partitionOf(_) == 0)
    stray.foreach { part =>
      if (rowCount(conf, part) > 0) throw new IllegalStateException(
        s"rows were routed outside the blocks being written ($part); nothing was committed")
    }
    // the files moved so far: a failure half way must not leave any of them in the root
    val moved = ArrayBuffer.empty[Path]
    try ofBlocks.map { part =>
      val block = blocks(partitionOf(part) - 1)
      val target = new Path(new Path(root), s"b$block-${part.getName}")
      if (fs.exists(target) || !fs.rename(part, target)) throw new IllegalStateException(s"could not move $part to $target")
      moved += target
      val status = fs.getFileStatus(target)
      Written(FilePaths.canonical(status.getPath.toUri), target.getName, FileIdentity.of(status), block)
    } catch {
      case NonFatal(e) =>
        moved.foreach(p => Try(fs.delete(p, false)))
        throw e
    }
  }

  private def quoted(name: String): String = "`" + name.replace("`", "``") + "`"

  private def rowCount(conf: Configuration, file: Path): Long = {
    val reader = ParquetFooters.open(conf, file)
    try reader.getRecordCount finally reader.close()
  }

  /** For each partition p < `partitions`, a long that hash partitioning sends to p. */
  def partitionKeys(partitions: Int): IndexedSeq[Long] = {
    def partitionOf(key: Long): Int = {
      val hash = new Murmur3Hash(Seq(Literal(key))).eval().asInstanceOf[Int]
      ((hash % partitions) + partitions) % partitions
    }
    val firstKeys = Iterator.iterate(0L)(_ + 1).map(k => partitionOf(k) -> k)
      .scanLeft(Map.empty[Int, Long]) { case (found, (p, k)) => if (found.contains(p)) found else found + (p -> k) }
      .dropWhile(_.size < partitions).next()
    (0 until partitions).map(firstKeys)
  }
}
