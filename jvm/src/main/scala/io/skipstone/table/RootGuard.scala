package io.skipstone.table

import java.nio.file.{Files, Paths}

import scala.util.Try

import org.apache.hadoop.fs.{FileSystem, Path}

/**
 * Decides whether a path may be deleted on behalf of a table: only paths strictly inside the
 * table's root, spelled without `.` or `..` segments, and, on local disk, neither a symbolic
 * link nor under one that leads out of the root. Log entries and intents are data that could
 * have been edited; nothing they name outside the root is ever touched.
 */
class RootGuard(fs: FileSystem, qualifiedRoot: Path) {
  /** The table's root, qualified: every path this guard allows is under it. */
  def root: Path = qualifiedRoot

  private val rootUri = qualifiedRoot.toUri.normalize()
  private val prefix = rootUri.getPath.stripSuffix("/") + "/"
  private lazy val realRoot = Try(Paths.get(rootUri).toRealPath()).toOption

  def allows(path: Path): Boolean = {
    val uri = fs.makeQualified(path).toUri
    val segments = uri.getPath.split('/')
    val inside = uri.getScheme == rootUri.getScheme && uri.getAuthority == rootUri.getAuthority &&
      uri.getPath.startsWith(prefix) && uri.getPath.length > prefix.length &&
      !segments.contains("..") && !segments.contains(".")
    inside && (fs.getScheme != "file" || locallyInside(uri))
  }

  /** Not a link, and its real parent directory is inside the root's real directory. */
  private def locallyInside(uri: java.net.URI): Boolean = {
    val local = Paths.get(uri)
    !Files.isSymbolicLink(local) && (for {
      root <- realRoot
      parent <- Try(local.getParent.toRealPath()).toOption
    } yield parent.startsWith(root)).getOrElse(false)
  }
}
