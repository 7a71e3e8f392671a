package io.skipstone.metadata

import java.nio.file.{Files, NoSuchFileException, Path => NioPath, Paths}
import java.nio.file.attribute.FileTime
import java.util.concurrent.TimeUnit
import java.util.stream.IntStream

import scala.util.control.NonFatal

/**
 * The current identity of many local files at once (see [[FileIdentity]]): one `stat` per file,
 * which is what the fingerprint (inode and ctime) needs; a directory listing cannot give it.
 * At a million files the check is the bulk of planning, so it goes straight from the canonical
 * path to the `stat` (no Hadoop path objects) on as many threads as the driver has cores.
 */
object LocalIdentities {
  /** Below this many files a single thread is quicker than handing out work. */
  private val ParallelFrom = 2048

  /** Identities of `paths` (canonical `file:` paths), None for a file that is gone or unreadable. */
  def of(paths: IndexedSeq[String]): Array[Option[FileIdentity]] = {
    val out = new Array[Option[FileIdentity]](paths.length)
    val range = IntStream.range(0, paths.length)
    (if (paths.length >= ParallelFrom) range.parallel() else range).forEach(i => out(i) = identity(paths(i)))
    out
  }

  def identity(canonical: String): Option[FileIdentity] =
    try {
      val a = Files.readAttributes(nioPath(canonical), "unix:size,lastModifiedTime,ctime,ino")
      val ctime = a.get("ctime").asInstanceOf[FileTime].to(TimeUnit.NANOSECONDS)
      Some(FileIdentity(a.get("size").asInstanceOf[Long], a.get("lastModifiedTime").asInstanceOf[FileTime].toMillis,
        Some(s"inode:${a.get("ino")}/ctime:$ctime")))
    } catch {
      case _: NoSuchFileException => None
      case NonFatal(_) => None
    }

  /** `file:/a/b` to a local path; escapes (`%20`) go through URI decoding. */
  private def nioPath(canonical: String): NioPath =
    if (canonical.startsWith("file:/") && !canonical.startsWith("file://") && canonical.indexOf('%') < 0)
      Paths.get(canonical.substring("file:".length))
    else Paths.get(new java.net.URI(canonical))
}
