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
   * Also for estimates and benchmarks, which take the metadata's word by design, and for any
   * dataset whose user chose to trust the listing (`Policy.Listing`).
   */
  case object Trusted extends SkipVerification

  /** Each candidate's identity is read from the file system now and must equal the recorded one. */
  final case class FileSystem(conf: Configuration) extends SkipVerification {
    def current(paths: IndexedSeq[String]): Array[Option[FileIdentity]] = FileIdentity.current(paths, conf)
  }

  /** What the user chose to check (`spark.skipstone.verifySkippedFiles`). */
  sealed abstract class Policy(val name: String)

  object Policy {
    /**
     * Every file but a managed table's or a Delta table's, which are immutable, named once and
     * listed from the table's manifest or log.
     */
    case object Auto extends Policy("auto")
    /** Every file, a managed table's too. */
    case object Always extends Policy("always")
    /**
     * No file: the size and modification time Spark listed (and the ETag, where the listing
     * has one), which must already equal the indexed ones, are trusted. Right for datasets whose files are never rewritten in place
     * (Spark, Hive, Delta and Iceberg writers all write new names); at a million files it is
     * most of planning.
     */
    case object Listing extends Policy("listing")

    val all: Seq[Policy] = Seq(Auto, Always, Listing)
    def names: Seq[String] = all.map(_.name)
    def named(name: String): Option[Policy] = all.find(_.name == name)
  }

  /** The verification a listing needs under `policy`; `immutable`: files listed from a manifest or a Delta log. */
  def forListing(policy: Policy, immutable: Boolean, conf: => Configuration): SkipVerification = policy match {
    case Policy.Always => FileSystem(conf)
    case Policy.Listing => Trusted
    case Policy.Auto => if (immutable) Trusted else FileSystem(conf)
  }
}
