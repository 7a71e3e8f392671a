package io.skipstone.table

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths, FileAlreadyExistsException => NioExists}
import java.util.UUID

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileAlreadyExistsException, FileContext, Options, Path}

/**
 * Creates a file with its whole content, or reports that it already exists: the commit of a
 * table version. Readers never see a partly written entry, and of two writers racing for one
 * name exactly one wins.
 *
 * Hadoop's local `FileSystem.create(path, overwrite = false)` checks existence and then opens
 * the file — two racing writers can both pass the check — and a reader could see the entry half
 * written. So the content goes to a temporary file first and is then published atomically:
 *  - local disk: a hard link (`link(2)` fails with EEXIST, atomically);
 *  - other Hadoop file systems: `FileContext.rename(..., Options.Rename.NONE)`, atomic on HDFS.
 * Object stores offer neither; there a conditional PUT (If-None-Match) is needed (not built yet).
 */
object PutIfAbsent {
  /** True if this call created `target`; false if it existed already. */
  def write(conf: Configuration, target: Path, content: String): Boolean = {
    val fs = target.getFileSystem(conf)
    val qualified = fs.makeQualified(target)
    val tmp = new Path(qualified.getParent, s".${qualified.getName}.${UUID.randomUUID()}.tmp")
    val bytes = content.getBytes(StandardCharsets.UTF_8)
    if (fs.getScheme == "file") {
      val local = Paths.get(qualified.toUri)
      val tmpLocal = Paths.get(tmp.toUri)
      Files.createDirectories(local.getParent)
      Files.write(tmpLocal, bytes)
      try { Files.createLink(local, tmpLocal); true }
      catch { case _: NioExists => false }
      finally Files.deleteIfExists(tmpLocal)
    } else {
      val out = fs.create(tmp, false)
      try out.write(bytes) finally out.close()
      try {
        FileContext.getFileContext(qualified.toUri, conf).rename(tmp, qualified, Options.Rename.NONE)
        true
      } catch {
        case _: FileAlreadyExistsException => false
      } finally Try(fs.delete(tmp, false))
    }
  }
}
