package io.skipstone.metadata

import java.nio.charset.StandardCharsets
import java.security.MessageDigest
import java.util.UUID

import scala.util.Try
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileAlreadyExistsException, FileContext, FileStatus, FileSystem, Options, Path}

import org.apache.spark.sql.SparkSession

import io.skipstone.encryption.{EncryptionConf, ParquetFooters}


/**
 * Where a dataset's metadata lives and how its versions are published.
 *
 * Layout of one dataset's metadata directory:
 * {{{
 *   <dir>/v00000000000000000007/index.json     definitions of the indexes
 *   <dir>/v00000000000000000007/table/part-N.parquet one row per data file
 *   <dir>/_staging-<uuid>/                      a build in progress, invisible to readers
 * }}}
 * A version becomes visible by one directory rename, so readers never see half of one.
 *
 * Reading needs no session: each reader takes a Hadoop `Configuration` and the metadata root
 * (`spark.skipstone.metadataRoot`, if set); the session forms only pass the session's.
 */
object MetadataStore {
  val DefaultDirName = "_skipstone"
  private val VersionName = """v(\d{20})""".r
  /** Versions kept besides the newest, so a reader that just listed them can still load its pick. */
  private val VersionsRetained = 2
  /**
   * How long a superseded version stays after the next one is published: a reader that listed
   * the versions just before the publish may still be loading it.
   */
  val SupersededGraceMillis: Long = 10L * 60 * 1000

  /** The dataset's root as a fully qualified URI string without a trailing slash: the cache key. */
  def qualify(session: SparkSession, path: String): String = qualify(session.sessionState.newHadoopConf(), path)

  def qualify(conf: Configuration, path: String): String = {
    val p = new Path(path)
    FilePaths.requireUnescaped(FilePaths.root(p.getFileSystem(conf).makeQualified(p).toUri))
  }

  /** Pure string work, no file-system call: the query path uses it for every relation. */
  def metadataDir(session: SparkSession, datasetRoot: String): Path =
    metadataDir(StoreConf.metadataRoot(session), datasetRoot)

  def metadataDir(metadataRoot: Option[String], datasetRoot: String): Path = metadataRoot match {
    case Some(root) => new Path(root, sha1(datasetRoot))
    case None => new Path(datasetRoot, DefaultDirName)
  }

  def versionDir(dir: Path, version: Long): Path = new Path(dir, f"v$version%020d")
  def tableDir(versionDir: Path): Path = new Path(versionDir, "table")
  def definitionFile(versionDir: Path): Path = new Path(versionDir, "index.json")

  /** The newest published version, or None when the dataset has no Skipstone metadata. */
  def latestVersion(session: SparkSession, dir: Path): Option[Long] = versions(session, dir).lastOption

  /** The published versions, oldest first. */
  def versions(session: SparkSession, dir: Path): Seq[Long] = versions(session.sessionState.newHadoopConf(), dir)

  def versions(conf: Configuration, dir: Path): Seq[Long] =
    // one listing, no existence check first: on object stores that check costs requests of its own
    versionsIn(DirectoryListing.orEmpty(dir.getFileSystem(conf), dir))

  /** The published versions among a listing of the metadata directory, oldest first. */
  def versionsIn(listing: Seq[FileStatus]): Seq[Long] =
    listing.filter(_.isDirectory).map(_.getPath.getName).collect { case VersionName(n) => n.toLong }.sorted

  def newStagingDir(session: SparkSession, datasetRoot: String): Path =
    new Path(metadataDir(session, FilePaths.requireUnescaped(datasetRoot)), s"_staging-${UUID.randomUUID()}")

  /**
   * Writes the definition into the staged build and renames it to the next version number.
   * Returns the version published. A concurrent publisher that took the number first makes the
   * rename fail; we then try the number after it.
   */
  def publish(session: SparkSession, datasetRoot: String, staging: Path, definitionJson: String): Long = {
    val conf = session.sessionState.newHadoopConf()
    val dir = metadataDir(session, datasetRoot)
    val fs = dir.getFileSystem(conf)
    val out = fs.create(definitionFile(staging), true)
    try out.write(definitionJson.getBytes(StandardCharsets.UTF_8)) finally out.close()
    val published = renameToFreeVersion(conf, dir, staging, latestVersion(session, dir).getOrElse(0L) + 1)
    if (!isManagedTable(fs, datasetRoot)) pruneSuperseded(fs, dir, versions(session, dir), published)
    published
  }

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
  private def isManagedTable(fs: FileSystem, datasetRoot: String): Boolean =
    fs.exists(new Path(new Path(datasetRoot, DefaultDirName), "log"))

  /**
   * For plain datasets: deletes the versions older than the last [[VersionsRetained]] whose
   * successor was published more than [[SupersededGraceMillis]] ago, so that a version is never
   * pulled from under a reader that picked it just before the next publish.
   */
  private def pruneSuperseded(fs: FileSystem, dir: Path, all: Seq[Long], published: Long): Unit = {
    val now = System.currentTimeMillis()
    all.zip(all.drop(1)).foreach { case (old, successor) =>
      val supersededAt = Try(fs.getFileStatus(definitionFile(versionDir(dir, successor))).getModificationTime).toOption
      if (old <= published - VersionsRetained && supersededAt.exists(now - _ > SupersededGraceMillis))
        Try(fs.delete(versionDir(dir, old), true))
    }
  }


  def readDefinition(session: SparkSession, versionDir: Path): DatasetIndex = {
    val file = definitionFile(versionDir)
    val fs = file.getFileSystem(session.sessionState.newHadoopConf())
    val in = fs.open(file)
    try DatasetIndex.fromJson(new String(in.readAllBytes(), StandardCharsets.UTF_8)) finally in.close()
  }

  /**
   * The newest published version of the dataset's metadata: its number, table directory and
   * definition JSON (index.json as written), or None when the dataset has none.
   */
  def current(session: SparkSession, datasetRoot: String): Option[(Long, Path, String)] =
    current(session.sessionState.newHadoopConf(), StoreConf.metadataRoot(session), datasetRoot)

  def current(conf: Configuration, metadataRoot: Option[String], datasetRoot: String): Option[(Long, Path, String)] = {
    val dir = metadataDir(metadataRoot, datasetRoot)
    versions(conf, dir).lastOption.map { v =>
      val versionDir = this.versionDir(dir, v)
      val file = definitionFile(versionDir)
      val in = file.getFileSystem(conf).open(file)
      val json = try new String(in.readAllBytes(), StandardCharsets.UTF_8) finally in.close()
      (v, tableDir(versionDir), json)
    }
  }

  /**
   * Files a version's metadata table describes (it holds one row per data file) and the bytes it
   * takes, from the Parquet footers: no row is read.
   */
  def tableSize(conf: Configuration, tableDir: Path): (Long, Long) = {
    val parts = tableParts(conf, tableDir)
    val rows = parts.map { s =>
      val reader = ParquetFooters.open(conf, s)
      try reader.getRecordCount finally reader.close()
    }
    (rows.sum, parts.map(_.getLen).sum)
  }

  /** The bytes a version's metadata table takes, from a listing (no footer is read). */
  def tableBytes(conf: Configuration, tableDir: Path): Long = tableParts(conf, tableDir).map(_.getLen).sum

  /** The Parquet files of a version's metadata table. */
  def tableParts(conf: Configuration, tableDir: Path): Seq[FileStatus] =
    tableDir.getFileSystem(conf).listStatus(tableDir).toSeq.filter(s => s.isFile && s.getPath.getName.endsWith(".parquet"))

  /** Files a version's table describes, or None when `conf` holds no key to its encrypted footers. */
  def filesIndexed(conf: Configuration, tableDir: Path): Option[Long] =
    try Some(tableSize(conf, tableDir)._1) catch {
      case NonFatal(e) if EncryptionConf.keyFailure(e).isDefined => None
    }

  /** Removes every version of the dataset's metadata (never the data). */
  def drop(session: SparkSession, datasetRoot: String): Boolean = {
    val dir = metadataDir(session, datasetRoot)
    val fs = dir.getFileSystem(session.sessionState.newHadoopConf())
    fs.exists(dir) && fs.delete(dir, true)
  }

  private def sha1(s: String): String =
    MessageDigest.getInstance("SHA-1").digest(s.getBytes(StandardCharsets.UTF_8)).map(b => f"$b%02x").mkString
}
