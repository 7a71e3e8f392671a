package io.skipstone.query

import org.apache.hadoop.conf.Configuration

import io.skipstone.metadata.FileIdentity

/**
 * How a file the metadata rules out is confirmed to still hold the bytes that were indexed,
 * before it is skipped. A listing agreeing with the metadata on size and modification time is
 * not enough for a dataset anyone may rewrite in place: Spark may have cached the listing, and
 * `cp -p` restores modification times (see [[FileIdentity]]).
 */
sealed trait SkipVerification

object SkipVerification {
  /**
   * The listing's word is enough: a managed table's files are written once under new names and
   * listed from the version's manifest, so they cannot change under their recorded identity.
   * Also for estimates and benchmarks, which take the metadata's word by design.
   */
  case object Trusted extends SkipVerification

  /** Each candidate's identity is read from the file system now and must equal the recorded one. */
  final case class FileSystem(conf: Configuration) extends SkipVerification {
    def current(paths: IndexedSeq[String]): Array[Option[FileIdentity]] = FileIdentity.current(paths, conf)
  }

  /** The verification a listing needs: none for files known immutable. */
  def forListing(immutableFiles: Boolean, conf: => Configuration): SkipVerification =
    if (immutableFiles) Trusted else FileSystem(conf)
}
