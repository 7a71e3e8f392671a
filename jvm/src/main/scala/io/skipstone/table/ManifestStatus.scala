package io.skipstone.table

import org.apache.hadoop.fs.{FileStatus, Path}

import io.skipstone.metadata.{CanonicallySpelled, FilePaths}

/**
 * One file of a manifest as Spark lists it, whose Hadoop Path is built only when asked for.
 * Skipping finds a file's metadata by its canonical spelling, which a manifest gives directly;
 * Spark asks for the Path of the files it reads. So the first query on a version of a million
 * files no longer parses a million paths (about 4 µs each) to read a few hundred.
 *
 * Everything Hadoop's FileStatus does with its path goes through `getPath` except `toString`
 * and serialization, which read the field: both are made to build it first.
 */
final class ManifestStatus(size: Long, modificationTime: Long, blockSize: Long, location: String, val canonicalPath: String)
  extends FileStatus(size, false, 1, blockSize, modificationTime, null) with CanonicallySpelled {

  // Two threads may both build it; they build equal Paths, and either may be kept.
  override def getPath: Path = {
    val built = super.getPath
    if (built != null) built
    else {
      val path = new Path(location)
      setPath(path)
      path
    }
  }

  override def toString: String = { getPath; super.toString }

  /** Serialized as the plain status it stands for, path included. */
  private def writeReplace(): AnyRef = new FileStatus(this)
}

object ManifestStatus {
  /**
   * Statuses for the files `relative` to `root`. The canonical spelling of `root/name` is the
   * root's spelling followed by `name` when `name` is plain (letters, digits, `._=-`, single
   * slashes between non-dot segments: Hadoop neither escapes nor normalizes such a name), which
   * Skipstone's own file names are; any other name is spelled through a Path, as a listing would.
   */
  final class Builder(root: String, blockSize: Long) {
    private val prefix = {
      val probe = FilePaths.canonical(new Path(root + "/" + Probe).toUri)
      require(probe.endsWith("/" + Probe), s"unexpected spelling $probe of a file under $root")
      probe.dropRight(Probe.length)
    }

    def apply(relative: String, size: Long, modificationTime: Long): ManifestStatus = {
      val location = root + "/" + relative
      val canonical = if (isPlain(relative)) prefix + relative else FilePaths.canonical(new Path(location).toUri)
      new ManifestStatus(size, modificationTime, blockSize, location, canonical)
    }
  }

  private val Probe = "probe.parquet"

  def isPlain(name: String): Boolean = {
    val segmentStart = (i: Int) => i == 0 || name.charAt(i - 1) == '/'
    name.nonEmpty && name.charAt(0) != '/' && name.charAt(name.length - 1) != '/' && name.indices.forall { i =>
      val c = name.charAt(i)
      if (c == '/') name.charAt(i - 1) != '/'
      else if (c == '.') !(segmentStart(i) && (i + 1 == name.length || name.charAt(i + 1) == '/' ||
        (name.charAt(i + 1) == '.' && (i + 2 == name.length || name.charAt(i + 2) == '/'))))
      else (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '='
    }
  }
}
