package io.skipstone.metadata

import java.net.URI

/**
 * One spelling per file. Hadoop writes the same local file as `file:/a/b` or `file:///a/b`
 * depending on how its parent path was built, and Spark's `_metadata.file_path` and its
 * listings do not always agree, so every path is compared in this form.
 */
object FilePaths {
  def canonical(uri: URI): String = {
    // Most URIs print canonically already (`file:/a/b`, `s3a://bucket/a/b`): at a million listed
    // files per query, building the string anew is a good part of planning.
    val printed = uri.toString
    val (scheme, authority, path) = (uri.getScheme, uri.getRawAuthority, uri.getRawPath)
    // Printed as scheme, ':', '//' and a non-empty authority if any, the path, and nothing else.
    if (scheme != null && path != null && !printed.startsWith(":///", scheme.length) &&
      printed.length == scheme.length + 1 + (if (authority == null) 0 else authority.length + 2) + path.length) printed
    else spelledOut(uri)
  }

  private def spelledOut(uri: URI): String = {
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
