package io.skipstone.metadata

import java.nio.file.{Files, Paths}

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{EtagSource, FileStatus, Path}

/**
 * What tells that a file still holds the bytes that were indexed.
 *
 * Size and modification time alone are not enough: `cp -p` and `rsync -t` restore the mtime,
 * object stores keep it to the second. So a content fingerprint is kept where the file system
 * offers a cheap one: the ETag of object stores, and on local disk the inode number with the
 * inode change time (ctime), which a rewrite always moves and no tool can set back. HDFS
 * offers none; there, size and modification time decide.
 */
case class FileIdentity(size: Long, modificationTime: Long, fingerprint: Option[String])

object FileIdentity {
  /** The identity of a listed file; local files cost one `stat`. */
  def of(status: FileStatus): FileIdentity =
    FileIdentity(status.getLen, status.getModificationTime, fingerprint(status))

  private def fingerprint(status: FileStatus): Option[String] =
    listed(status).orElse(
      if (status.getPath.toUri.getScheme == "file") localIdentity(status.getPath).flatMap(_.fingerprint) else None)

  /**
   * The fingerprint a listing already carries, with no file-system call: the ETag of object
   * stores (S3A, ABFS and GCS list it with each object). None elsewhere.
   */
  def listed(status: FileStatus): Option[String] = status match {
    case e: EtagSource => Option(e.getEtag).filter(_.nonEmpty).map(EtagPrefix + _)
    case _ => None
  }

  private val EtagPrefix = "etag:"

  /**
   * Whether a listed fingerprint shows that the file is no longer the one recorded: both are
   * ETags and they differ. Anything else (no ETag on either side) leaves it to size and time.
   */
  def contradicts(recorded: Option[String], listed: Option[String]): Boolean = (recorded, listed) match {
    case (Some(r), Some(l)) => r.startsWith(EtagPrefix) && l.startsWith(EtagPrefix) && r != l
    case _ => false
  }

  private def localIdentity(path: Path): Option[FileIdentity] = Try {
    val a = Files.readAttributes(Paths.get(path.toUri), "unix:size,lastModifiedTime,ctime,ino")
    val ctime = a.get("ctime").asInstanceOf[java.nio.file.attribute.FileTime]
    val nanos = ctime.to(java.util.concurrent.TimeUnit.NANOSECONDS)
    FileIdentity(a.get("size").asInstanceOf[Long],
      a.get("lastModifiedTime").asInstanceOf[java.nio.file.attribute.FileTime].toMillis,
      Some(s"inode:${a.get("ino")}/ctime:$nanos"))
  }.toOption

  /** Canonical paths keep the URI's escapes (`%20`), which `new Path(String)` would escape again. */
  private def toPath(canonical: String): Path = new Path(new java.net.URI(canonical))

  /** Files at or above this count in one directory are checked by listing it once. */
  private val ListDirectoryFrom = 16

  /**
   * The current identity of each file, read from the file system now (never from a listing
   * Spark may have cached), in the order of `paths`; None for a file that is gone.
   */
  def current(paths: IndexedSeq[String], conf: Configuration): Array[Option[FileIdentity]] = {
    val out = Array.fill[Option[FileIdentity]](paths.length)(None)
    // Local files: one stat each, all of them at once on the driver's cores.
    val (local, remote) = paths.indices.partition(i => paths(i).startsWith("file:"))
    LocalIdentities.of(local.map(paths)).iterator.zip(local.iterator).foreach { case (id, i) => out(i) = id }
    // Elsewhere a directory holding many candidates is listed once (one paged call on object stores).
    remote.groupBy(i => toPath(paths(i)).getParent).foreach { case (dir, inDir) =>
      if (inDir.size >= ListDirectoryFrom) {
        val fs = dir.getFileSystem(conf)
        val wanted = inDir.map(i => paths(i) -> i).toMap
        Try(fs.listStatus(dir).toSeq).getOrElse(Seq.empty).foreach { s =>
          wanted.get(FilePaths.canonical(s.getPath.toUri)).foreach(i => out(i) = Some(of(s)))
        }
      } else inDir.foreach { i =>
        val path = toPath(paths(i))
        out(i) = Try(path.getFileSystem(conf).getFileStatus(path)).toOption.map(of)
      }
    }
    out
  }
}
