package io.skipstone.metadata

import java.io.{FileNotFoundException, IOException}

import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}

/**
 * A directory's entries in one listing, with no existence check first (on object stores that
 * check costs requests of its own): none when the directory does not exist. A listing that
 * fails otherwise is asked again the old way: HDFS refuses to list a path under a file (a data
 * file's path asked whether it is a table) with an error of its own, not "not found", and there
 * `exists` says no; any other failure of a directory that exists is the caller's.
 */
object DirectoryListing {
  def orEmpty(fs: FileSystem, dir: Path): Seq[FileStatus] =
    try fs.listStatus(dir).toSeq
    catch {
      case _: FileNotFoundException => Nil
      case e: IOException => if (fs.exists(dir)) throw e else Nil
    }
}
