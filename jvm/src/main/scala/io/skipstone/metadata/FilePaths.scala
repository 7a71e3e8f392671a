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

  /**
   * `root`, or a clear error when its spelling holds URI escapes (a space, `%`, `#`...).
   * Skipstone builds the paths of its own files under a root from this spelling, and Hadoop's
   * `new Path(String)` would escape the escapes again: the metadata or a table's files would
   * land in a sibling directory named with the escapes. Until every such place goes through the
   * URI, indexing or creating a table under such a root is refused; queries on it read every file.
   */
  def requireUnescaped(root: String): String = {
    if (root.contains('%')) throw new IllegalArgumentException(
      s"Skipstone cannot index or create a table under ${new java.net.URI(root).getPath}: its path has characters " +
        "that need escaping in a URI (a space, %, #, ...); use a directory whose path has none")
    root
  }

  /** A dataset root: canonical and without a trailing slash. */
  def root(uri: URI): String = {
    val c = canonical(uri)
    if (c.endsWith("/") && !c.endsWith(":/")) c.dropRight(1) else c
  }
}

/**
 * A listed file that already knows its canonical spelling (a managed table's manifest does), so
 * a query neither builds nor spells a Hadoop Path for it to find its metadata.
 */
trait CanonicallySpelled {
  def canonicalPath: String
}
