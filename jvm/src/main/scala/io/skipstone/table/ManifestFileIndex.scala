package io.skipstone.table

import org.apache.hadoop.fs.{FileStatus, Path}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.datasources.{FileIndex, FileStatusWithMetadata, PartitionDirectory}
import org.apache.spark.sql.types.StructType

import io.skipstone.query.PinnedMetadataVersion

/**
 * The files of one version of a managed table, from its log entry: no directory listing, and
 * the same files from planning to the end of the query however many commits happen meanwhile,
 * skipped with the metadata version the entry records; plus the files other writers dropped into
 * the root ([[UnindexedFiles]]), listed when the version was resolved, which are always read.
 */
class ManifestFileIndex(val root: String, val snapshot: Snapshot, val unindexed: Seq[FileStatus] = Seq.empty)
  extends FileIndex with PinnedMetadataVersion {
  private lazy val statuses: Seq[FileStatusWithMetadata] = {
    val indexed = ManifestFileIndex.indexedStatuses(root, snapshot)
    if (unindexed.isEmpty) indexed.toSeq else indexed.toSeq ++ unindexed.map(FileStatusWithMetadata(_))
  }

  override def listFiles(partitionFilters: Seq[Expression], dataFilters: Seq[Expression]): Seq[PartitionDirectory] =
    if (statuses.isEmpty) Seq.empty else Seq(PartitionDirectory(InternalRow.empty, statuses))

  /** Skipping uses the metadata built for this version's files, not a newer one. */
  override def metadataVersion: Option[Long] = snapshot.metadataVersion

  override def rootPaths: Seq[Path] = Seq(new Path(root))
  override def inputFiles: Array[String] = statuses.map(_.getPath.toString).toArray
  /** Pinned: a refresh does not move a planned query to another version. */
  override def refresh(): Unit = ()
  override def sizeInBytes: Long = snapshot.totalBytes + unindexed.map(_.getLen).sum
  override def partitionSchema: StructType = new StructType()

  override def equals(other: Any): Boolean = other match {
    case o: ManifestFileIndex => o.root == root && o.snapshot.version == snapshot.version && o.unindexedPaths == unindexedPaths
    case _ => false
  }
  override def hashCode(): Int = 31 * root.hashCode + snapshot.version.hashCode

  private lazy val unindexedPaths: Set[String] = unindexed.map(_.getPath.toString).toSet

  override def toString: String = s"ManagedTable[$root, version ${snapshot.version}, ${snapshot.files.size} files" +
    (if (unindexed.nonEmpty) s", ${unindexed.size} unindexed]" else "]")
}

object ManifestFileIndex {
  // Spark splits files by spark.sql.files.maxPartitionBytes, not by this; it only has to be positive.
  private val BlockSize = 128L << 20

  /**
   * The version's files as Spark lists them. A cached snapshot serves every query on its
   * version, so they are built once per snapshot and shared; Spark only reads them. Their
   * Hadoop Paths are built only for the files a query reads ([[ManifestStatus]]).
   */
  def indexedStatuses(root: String, snapshot: Snapshot): IndexedSeq[FileStatusWithMetadata] =
    snapshot.listing.updateAndGet { memo =>
      if (memo != null && memo.root == root) memo
      else {
        val status = new ManifestStatus.Builder(root, BlockSize)
        Listing(root, snapshot.files.iterator.map(f => FileStatusWithMetadata(status(f.path, f.size, f.modificationTime)))
          .toIndexedSeq)
      }
    }.statuses

  /** What a snapshot keeps of its listing: the root it was built under, and the statuses. */
  final case class Listing(root: String, statuses: IndexedSeq[FileStatusWithMetadata])
}
