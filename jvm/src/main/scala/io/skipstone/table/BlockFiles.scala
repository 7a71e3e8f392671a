package io.skipstone.table

import org.apache.hadoop.fs.Path

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Literal, Murmur3Hash}
import org.apache.spark.sql.functions.{coalesce, col, lit, try_element_at, typedLit}

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
 * exactly once, and a part file's partition names its block.
 */
object BlockFiles {
  /** A file written and moved into the root. @param path canonical absolute URI, as metadata spells it */
  final case class Written(path: String, name: String, identity: FileIdentity, block: Long)

  private val PartFile = """part-(\d{5,})-.*""".r
  private val KeyColumn = "__skipstone_block_key"

  /**
   * @param blockOf the block of each row (a long column over `rows`); a row whose block is not
   *                in `blocks`, or NULL, fails the write before anything is committed
   */
  def write(session: SparkSession, rows: DataFrame, blockOf: Column, blocks: Seq[Long], staging: Path, root: String,
            maxRowsPerFile: Long): Seq[Written] =
    writeBlocks(session, rows, blockOf, Nil, blocks, staging, root, maxRowsPerFile)

  /**
   * [[write]] for rows that carry their block in column `blockColumn` (as
   * `LayoutRouting.withBlock` adds it); that column is not written.
   */
  def writeRouted(session: SparkSession, routed: DataFrame, blockColumn: String, blocks: Seq[Long], staging: Path,
                  root: String, maxRowsPerFile: Long): Seq[Written] =
    writeBlocks(session, routed, col(s"`${blockColumn.replace("`", "``")}`"), Seq(blockColumn), blocks, staging, root,
      maxRowsPerFile)

  private def writeBlocks(session: SparkSession, rows: DataFrame, blockOf: Column, notWritten: Seq[String],
                          blocks: Seq[Long], staging: Path, root: String, maxRowsPerFile: Long): Seq[Written] = {
    val stray = blocks.size // the partition of rows that belong to no block being written
    val keys = partitionKeys(stray + 1)
    val keyOf = typedLit(blocks.zipWithIndex.map { case (b, i) => b -> keys(i) }.toMap)
    val keyed = rows.withColumn(KeyColumn, coalesce(try_element_at(keyOf, blockOf), lit(keys(stray)))).drop(notWritten: _*)
    keyed.repartition(stray + 1, col(KeyColumn)).drop(KeyColumn)
      .write.option("maxRecordsPerFile", math.max(1L, maxRowsPerFile)).parquet(staging.toString)

    val fs = staging.getFileSystem(session.sessionState.newHadoopConf())
    fs.listStatus(staging).toSeq.map(_.getPath).filter(p => PartFile.pattern.matcher(p.getName).matches()).map { part =>
      val PartFile(partition) = part.getName
      if (partition.toInt >= stray) throw new IllegalStateException(
        s"rows were routed outside the blocks being written ($part); nothing was committed")
      val block = blocks(partition.toInt)
      val target = new Path(new Path(root), s"b$block-${part.getName}")
      if (fs.exists(target) || !fs.rename(part, target)) throw new IllegalStateException(s"could not move $part to $target")
      val status = fs.getFileStatus(target)
      Written(FilePaths.canonical(status.getPath.toUri), target.getName, FileIdentity.of(status), block)
    }
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
