package io.skipstone.metadata

import java.net.URI

/**
 * One spelling per file. Hadoop writes the same local file as `file:/a/b` or `file:///a/b`
 * depending on how its parent path was built, and Spark's `_metadata.file_path` and its
 * listings do not always agree, so every path is compared in this form.
 */
object FilePaths {
  def canonical(uri: URI): String = {
    val path = Option(uri.getRawPath).getOrElse("")
    (Option(uri.getScheme), Option(uri.getRawAuthority).filter(_.nonEmpty)) match {
      case (Some(scheme), Some(authority)) => s"$scheme://$authority$path"
      case (Some(scheme), None) => s"$scheme:$path"
      case (None, _) => path
    }
  }

  def canonical(uriString: String): String = canonical(new URI(uriString))

  /** A dataset root: canonical and without a trailing slash. */
  def root(uri: URI): String = {
    val c = canonical(uri)
    if (c.endsWith("/") && !c.endsWith(":/")) c.dropRight(1) else c
  }
}
