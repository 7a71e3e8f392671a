package io.skipstone.table

import java.util.{Collections, LinkedHashMap}

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import io.skipstone.encryption.ParquetFooters

/**
 * The share of a table's bytes that a scan of some of its columns reads: Parquet reads only the
 * columns a query projects, so a query that reads 3 of 25 columns pays for a fraction of each
 * row. Layout policies price the bytes a query reads with it (a rewrite still reads and writes
 * every column). Measured from the column chunks of one of the table's files, the largest
 * (its row groups speak for the table's); files of a managed table never change, so the sizes
 * of a file are read once.
 */
object ReadShare {
  private val CachedFiles = 1000
  private val sizes = Collections.synchronizedMap(new LinkedHashMap[String, Map[String, Long]](16, 0.75f, true) {
    override def removeEldestEntry(eldest: java.util.Map.Entry[String, Map[String, Long]]): Boolean =
      size() > CachedFiles
  })

  /**
   * The share of the bytes of `snapshot`'s files (of the table at `root`) that reading the top-level `columns` reads, in
   * (0, 1]; None when the table has no file or its footer cannot be read (the log then says
   * nothing, and a policy prices whole rows).
   */
  def of(conf: Configuration, root: String, snapshot: Snapshot, columns: Seq[String]): Option[Double] =
    snapshot.files.sortBy(f => (-f.size, f.path)).headOption.flatMap { file =>
      val path = s"$root/${file.path}"
      Option(sizes.get(path)).orElse(Try(columnBytes(conf, new Path(path))).toOption.map { s => sizes.put(path, s); s })
    }.flatMap { bytes =>
      val total = bytes.values.sum
      val wanted = columns.map(_.toLowerCase).toSet
      val read = bytes.collect { case (c, b) if wanted.contains(c.toLowerCase) => b }.sum
      // a scan that reads no column (count(*)) still reads its files' row counts: priced as a tiny share
      if (total <= 0) None else Some(math.max(read.toDouble, 1.0) / total)
    }

  /** Compressed bytes per top-level column over the file's row groups. */
  private def columnBytes(conf: Configuration, file: Path): Map[String, Long] = {
    val reader = ParquetFooters.open(conf, file)
    try reader.getFooter.getBlocks.asScala.iterator.flatMap(_.getColumns.asScala)
      .map(c => c.getPath.toArray.head -> c.getTotalSize).toSeq.groupMapReduce(_._1)(_._2)(_ + _)
    finally reader.close()
  }
}
