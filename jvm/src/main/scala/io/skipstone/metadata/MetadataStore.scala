package io.skipstone.metadata

import java.nio.charset.StandardCharsets
import java.security.MessageDigest
import java.util.UUID

import scala.util.Try

import org.apache.hadoop.fs.{FileAlreadyExistsException, FileContext, Options, Path}

import org.apache.spark.sql.SparkSession

import io.skipstone.SkipstoneConf

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
 */
object MetadataStore {
  val DefaultDirName = "_skipstone"
  private val VersionName = """v(\d{20})""".r
  /** Versions kept besides the newest, so a reader that just listed them can still load its pick. */
  private val VersionsRetained = 2

  /** The dataset's root as a fully qualified URI string without a trailing slash: the cache key. */
  def qualify(session: SparkSession, path: String): String = {
    val p = new Path(path)
    val fs = p.getFileSystem(session.sessionState.newHadoopConf())
    FilePaths.root(fs.makeQualified(p).toUri)
  }

  /** Pure string work, no file-system call: the query path uses it for every relation. */
  def metadataDir(session: SparkSession, datasetRoot: String): Path =
    SkipstoneConf.metadataRoot(session) match {
      case Some(root) => new Path(root, sha1(datasetRoot))
      case None => new Path(datasetRoot, DefaultDirName)
    }

  def versionDir(dir: Path, version: Long): Path = new Path(dir, f"v$version%020d")
  def tableDir(versionDir: Path): Path = new Path(versionDir, "table")
  def definitionFile(versionDir: Path): Path = new Path(versionDir, "index.json")

  /** The newest published version, or None when the dataset has no Skipstone metadata. */
  def latestVersion(session: SparkSession, dir: Path): Option[Long] = versions(session, dir).lastOption

  private def versions(session: SparkSession, dir: Path): Seq[Long] = {
    val fs = dir.getFileSystem(session.sessionState.newHadoopConf())
    if (!fs.exists(dir)) Seq.empty
    else fs.listStatus(dir).toSeq.filter(_.isDirectory).map(_.getPath.getName).collect {
      case VersionName(n) => n.toLong
    }.sorted
  }

  def newStagingDir(session: SparkSession, datasetRoot: String): Path =
    new Path(metadataDir(session, datasetRoot), s"_staging-${UUID.randomUUID()}")

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
    val context = FileContext.getFileContext(dir.toUri, conf)
    def attempt(version: Long, triesLeft: Int): Long =
      Try(context.rename(staging, versionDir(dir, version), Options.Rename.NONE)).fold({
        case _: FileAlreadyExistsException if triesLeft > 0 => attempt(version + 1, triesLeft - 1)
        case e => throw e
      }, _ => version)
    val published = attempt(latestVersion(session, dir).getOrElse(0L) + 1, 10)
    versions(session, dir).filter(_ <= published - VersionsRetained).foreach { old =>
      Try(fs.delete(versionDir(dir, old), true))
    }
    published
  }

  def readDefinition(session: SparkSession, versionDir: Path): DatasetIndex = {
    val file = definitionFile(versionDir)
    val fs = file.getFileSystem(session.sessionState.newHadoopConf())
    val in = fs.open(file)
    try DatasetIndex.fromJson(new String(in.readAllBytes(), StandardCharsets.UTF_8)) finally in.close()
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
