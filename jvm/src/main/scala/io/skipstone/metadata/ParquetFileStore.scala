package io.skipstone.metadata

import java.nio.charset.StandardCharsets
import java.util.UUID

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileAlreadyExistsException, FileContext, FileStatus, FileSystem, Options, Path}


/**
 * The metadata store of Parquet files beside the data (or under `spark.skipstone.metadataRoot`):
 * {{{
 *   <dir>/v00000000000000000007/index.json     definitions of the indexes
 *   <dir>/v00000000000000000007/table/part-N.parquet one row per data file
 *   <dir>/_staging-<uuid>/                      a build in progress, invisible to readers
 * }}}
 * A version becomes visible by one directory rename, so readers never see half of one; a
 * rename refuses a version that exists, so two publishers never both take a number.
 * Managed tables keep their metadata here always (their log records the versions they use).
 */
final class ParquetFileStore(conf: Configuration, val dir: Path, val datasetRoot: String) extends MetadataStore {
  import ParquetFileStore._

  override def location: String = dir.toString

  override def versions(): Seq[Long] =
    // one listing, no existence check first: on object stores that check costs requests of its own
    versionsIn(DirectoryListing.orEmpty(dir.getFileSystem(conf), dir))

  override def definitionJson(version: Long): String = {
    val file = definitionFile(versionDir(dir, version))
    val in = file.getFileSystem(conf).open(file)
    try new String(in.readAllBytes(), StandardCharsets.UTF_8) finally in.close()
  }

  override def tableDir(version: Long): Path = ParquetFileStore.tableDir(versionDir(dir, version))

  override def stage(): Staged = Staged(new Path(dir, s"_staging-${UUID.randomUUID()}"))

  /**
   * Writes the definition into the staged build and renames it to the next version number.
   * A concurrent publisher that took the number first makes the rename fail; we then try the
   * number after it.
   */
  override def publish(staged: Staged, definitionJson: String): Long = {
    val fs = dir.getFileSystem(conf)
    val out = fs.create(definitionFile(staged.dir), true)
    try out.write(definitionJson.getBytes(StandardCharsets.UTF_8)) finally out.close()
    val listing = DirectoryListing.orEmpty(fs, dir)
    val published = renameToFreeVersion(conf, dir, staged.dir, versionsIn(listing).lastOption.getOrElse(0L) + 1)
    if (!isManagedTable(fs, datasetRoot)) pruneSuperseded(fs, versions(), published)
    // A dataset that moves back from a catalog table to files: its pointer would hide this version.
    if (listing.exists(_.getPath.getName == StorePointer.FileName)) StorePointer.remove(conf, dir)
    published
  }

  override def abandon(staged: Staged): Unit = {
    val fs = staged.dir.getFileSystem(conf)
    if (fs.exists(staged.dir)) fs.delete(staged.dir, true)
  }

  override def drop(): Boolean = {
    val fs = dir.getFileSystem(conf)
    fs.exists(dir) && fs.delete(dir, true)
  }

  /**
   * For plain datasets: deletes the versions older than the last [[VersionsRetained]] whose
   * successor was published more than [[SupersededGraceMillis]] ago, so that a version is never
   * pulled from under a reader that picked it just before the next publish.
   */
  private def pruneSuperseded(fs: FileSystem, all: Seq[Long], published: Long): Unit = {
    val now = System.currentTimeMillis()
    all.zip(all.drop(1)).foreach { case (old, successor) =>
      val supersededAt = Try(fs.getFileStatus(definitionFile(versionDir(dir, successor))).getModificationTime).toOption
      if (old <= published - VersionsRetained && supersededAt.exists(now - _ > SupersededGraceMillis))
        Try(fs.delete(versionDir(dir, old), true))
    }
  }
}

object ParquetFileStore {
  val DefaultDirName = "_skipstone"
  private val VersionName = """v(\d{20})""".r
  /** Versions kept besides the newest, so a reader that just listed them can still load its pick. */
  private[metadata] val VersionsRetained = 2
  /**
   * How long a superseded version stays after the next one is published: a reader that listed
   * the versions just before the publish may still be loading it.
   */
  val SupersededGraceMillis: Long = 10L * 60 * 1000

  def versionDir(dir: Path, version: Long): Path = new Path(dir, f"v$version%020d")
  def tableDir(versionDir: Path): Path = new Path(versionDir, "table")
  def definitionFile(versionDir: Path): Path = new Path(versionDir, "index.json")

  /** The published versions among a listing of the metadata directory, oldest first. */
  def versionsIn(listing: Seq[FileStatus]): Seq[Long] =
    listing.filter(_.isDirectory).map(_.getPath.getName).collect { case VersionName(n) => n.toLong }.sorted

  /**
   * Renames `staging` to the first version from `first` on that no other publisher took, and
   * returns it. A rename refuses a version that exists. On a store whose rename copies object by
   * object (S3A), another publisher may begin copying into the version between that check and
   * the copy: the store's rename then answers false, which `FileContext` reports as a plain
   * `IOException`; the version exists by then and the staged build is untouched, so that too is
   * a version taken.
   */
  def renameToFreeVersion(conf: Configuration, dir: Path, staging: Path, first: Long): Long = {
    val context = FileContext.getFileContext(dir.toUri, conf)
    val fs = dir.getFileSystem(conf)
    def taken(version: Long, e: Throwable): Boolean = e match {
      case _: FileAlreadyExistsException => true
      case _: java.io.IOException => fs.exists(versionDir(dir, version)) && fs.exists(definitionFile(staging))
      case _ => false
    }
    def attempt(version: Long, triesLeft: Int): Long =
      Try(context.rename(staging, versionDir(dir, version), Options.Rename.NONE)).fold({
        case e if triesLeft > 0 && taken(version, e) => attempt(version + 1, triesLeft - 1)
        case e => throw e
      }, _ => version)
    attempt(first, 10)
  }

  /**
   * A managed table's metadata versions are the table's to delete: its versions record which
   * one they use, and its vacuum keeps every version a retained table version references
   * (the table package's `Vacuum`). The log's location is part of the table format.
   */
  def isManagedTable(fs: FileSystem, datasetRoot: String): Boolean =
    fs.exists(new Path(new Path(datasetRoot, DefaultDirName), "log"))
}
