package io.skipstone.query

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, ExprId, Expression}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{FileIndex, FileStatusWithMetadata, PartitionDirectory, PartitioningAwareFileIndex}
import org.apache.spark.sql.types.StructType

import io.skipstone.metadata.{LoadedMetadata, MetadataCache, ReadContext}
import io.skipstone.sources.{TableFormat, TableFormats}

/**
 * Wraps a relation's file index: lists through the delegate (so Spark's partition pruning
 * applies first), then drops the files whose metadata proves they hold no row matching the
 * filter the relation sits under.
 *
 * This is the one boundary where failures become "no skipping": whatever goes wrong here is
 * logged and the delegate's listing is returned unchanged, never a failed or wrong query.
 *
 * @param condition the filter's conjuncts that may prune (see [[SkippingRule.prunable]])
 * @param reading   how the relation reads its files, compared with how the metadata was built
 */
class SkippingFileIndex(
    val delegate: FileIndex,
    val condition: Expression,
    val datasetRoot: String,
    val schema: StructType,
    val reading: ReadContext.Reading,
    session: SparkSession) extends FileIndex with Logging {

  // Written by listFiles on the driver, read by the stats listener after the query; a plan that
  // is executed again reuses its listing, so the last listing is the one that query used.
  @volatile private var lastListing: Option[ListingStats] = None

  def lastStats: Option[ListingStats] = lastListing

  /** The table format whose snapshot the delegate lists (immutable files, named once), if any. */
  private val listingFormat: Option[TableFormat] = TableFormats.of(delegate)

  /**
   * The metadata to skip with: the version the delegate is pinned to (a managed table's
   * version records the one built for its files), else the newest.
   */
  private def metadata: Option[LoadedMetadata] = delegate match {
    case _: PinnedMetadataVersion => pinnedMetadata
    case _ => MetadataCache.current(session, datasetRoot)
  }

  // Loaded once per index: the size estimate and the listing of one query use the same version.
  private lazy val pinnedMetadata: Option[LoadedMetadata] = delegate match {
    case pinned: PinnedMetadataVersion => pinned.metadataVersion.flatMap(MetadataCache.at(session, datasetRoot, _))
    case _ => None
  }

  private def skipper(metadata: LoadedMetadata, verification: SkipVerification): FileSkipper = {
    val read = QueryRead(schema, ReadContext.of(reading, session), session.sessionState.conf.resolver,
      byPathAndSize = listingFormat.isDefined)
    new FileSkipper(metadata, condition, read, verification)
  }

  override def listFiles(partitionFilters: Seq[Expression], dataFilters: Seq[Expression]): Seq[PartitionDirectory] = {
    val listed = delegate.listFiles(partitionFilters, dataFilters)
    // A misspelt setting fails the query with its name, rather than silently reading everything.
    val policy = QueryConf.skipVerification(session)
    val (kept, stats) =
      try {
        metadata match {
          case Some(metadata) if QueryConf.enabled(session) =>
            val immutable = delegate.isInstanceOf[PinnedMetadataVersion] || listingFormat.isDefined
            val verification = SkipVerification.forListing(policy, immutable, session.sessionState.newHadoopConf())
            val skipping = skipper(metadata, verification)
            val (pruned, found) = skipping.prune(listed, Some(session))
            autoRefreshed(metadata, skipping, listed, verification, pruned, withSnapshots(metadata, found))
          case _ => (listed, SkippingFileIndex.noSkipping(datasetRoot, listed, "skipping disabled or index dropped"))
        }
      } catch {
        case NonFatal(e) =>
          logWarning(s"Skipstone: skipping failed for $datasetRoot; reading all files", e)
          (listed, SkippingFileIndex.noSkipping(datasetRoot, listed, s"error: ${e.getMessage}"))
      }
    lastListing = Some(stats)
    kept
  }

  /**
   * An index with automatic refresh (docs/partial-indexes.md) whose metadata lacks some listed
   * files: they are indexed by a refresh in the background (at most the index's `maxFiles`,
   * one refresh per dataset at a time), and the listing is pruned again with the version it
   * publishes if that takes at most the index's `maxSeconds`. Otherwise the pruning stands: the
   * new files are read now, and skipped by later queries once the refresh has published.
   */
  private def autoRefreshed(metadata: LoadedMetadata, skipping: FileSkipper, listed: Seq[PartitionDirectory],
                            verification: SkipVerification, pruned: Seq[PartitionDirectory],
                            found: ListingStats): (Seq[PartitionDirectory], ListingStats) = {
    val settings = metadata.definition.autoRefresh.filter(_ => found.filesUnindexed > 0 && listingFormat.isEmpty &&
      !AutoRefresher.isRefreshing && !delegate.isInstanceOf[PinnedMetadataVersion])
    val files = settings.fold(Seq.empty[String])(s => skipping.uncovered(listed, s.maxFiles))
    if (files.isEmpty) (pruned, found)
    else {
      val refresh = AutoRefresher.refresh(session, datasetRoot, files)
      AutoRefresher.await(refresh, settings.get.maxSeconds)
        .flatMap(_ => MetadataCache.current(session, datasetRoot)).filter(_.version > metadata.version) match {
        case Some(refreshed) =>
          val (again, stats) = skipper(refreshed, verification).prune(listed, Some(session))
          (again, stats.copy(unanswered = stats.unanswered :+ s"this query found ${files.size} new files and skipped " +
            s"with metadata version ${refreshed.version}, which an automatic refresh published while it waited"))
        case None =>
          (pruned, found.copy(unanswered = found.unanswered :+ s"${files.size} new files were read while an automatic " +
            "refresh indexes them in the background; later queries skip with them"))
      }
    }
  }

  /**
   * Why a table format's listing had files the index lacks: the snapshots the index was built
   * from and the query reads (a time travel reads an older one), so that the stats say what
   * refresh() does.
   */
  private def withSnapshots(metadata: LoadedMetadata, stats: ListingStats): ListingStats =
    listingFormat.filter(_ => stats.filesUnindexed > 0).fold(stats) { format =>
      val word = format.snapshotWord
      val built = metadata.definition.read.flatMap(_.tableVersion).fold(s"an unknown $word")(v => s"$word $v")
      val reads = format.snapshotOf(delegate).fold("")(v => s" at $word $v")
      stats.copy(unanswered = stats.unanswered :+ (s"${stats.filesUnindexed} files the ${format.title} table lists$reads " +
        s"are not in the index built from $built, so they are read: files added after it (refresh() indexes them) " +
        s"or, in an older $word, files removed before it"))
    }

  /**
   * The delegate's size less the files the metadata rules out, for Spark's join planning (a
   * broadcast is chosen by size). An estimate from the cached listing: nothing is verified.
   */
  override lazy val sizeInBytes: Long = {
    val full = delegate.sizeInBytes
    delegate match {
      case listed: PartitioningAwareFileIndex if full < Long.MaxValue =>
        try {
          metadata.fold(full) { metadata =>
            val all = PartitionDirectory(InternalRow.empty, listed.allFiles().map(FileStatusWithMetadata(_)))
            val (_, stats) = skipper(metadata, SkipVerification.Trusted).prune(Seq(all))
            math.max(1L, full - stats.bytesSkipped)
          }
        } catch {
          case NonFatal(e) =>
            logDebug(s"Skipstone: no size estimate for $datasetRoot", e)
            full
        }
      case _ => full
    }
  }

  override def rootPaths: Seq[Path] = delegate.rootPaths
  override def inputFiles: Array[String] = delegate.inputFiles
  override def refresh(): Unit = delegate.refresh()
  override def partitionSchema: StructType = delegate.partitionSchema
  override def metadataOpsTimeNs: Option[Long] = delegate.metadataOpsTimeNs

  /** The condition without expression ids, so equal queries give equal wrappers. */
  private[query] lazy val normalizedCondition: Expression = SkippingFileIndex.normalize(condition)

  // Value equality: exchange reuse and subquery merging compare relations, hence this index.
  override def equals(other: Any): Boolean = other match {
    case o: SkippingFileIndex => o.delegate == delegate && o.normalizedCondition == normalizedCondition && o.schema == schema
    case _ => false
  }
  override def hashCode(): Int = 31 * delegate.hashCode() + normalizedCondition.hashCode()

  override def toString: String =
    s"Skipstone[$datasetRoot, " + lastListing.map(_.describe).getOrElse("not listed yet") + s"] over $delegate"
}

/** A file index that lists the files of one version whose skipping metadata is a known version. */
trait PinnedMetadataVersion {
  /** None: no metadata was built for these files, nothing is skipped. */
  def metadataVersion: Option[Long]
}

object SkippingFileIndex {
  def normalize(e: Expression): Expression = e.transform {
    case a: AttributeReference => a.withExprId(ExprId(0)).withQualifier(Nil)
  }

  private def noSkipping(root: String, listed: Seq[PartitionDirectory], why: String): ListingStats = {
    val files = listed.flatMap(_.files)
    ListingStats(root, files.size.toLong, 0L, files.map(_.getLen).sum, 0L, 0L, Seq(why))
  }
}
