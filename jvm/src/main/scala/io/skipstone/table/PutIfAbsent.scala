package io.skipstone.table

import java.io.IOException
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths, FileAlreadyExistsException => NioExists}
import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileAlreadyExistsException, FileContext, FileSystem, Options, Path}

/**
 * Creates a file with its whole content, or reports that it already exists: the commit of a
 * table version. Readers never see a partly written entry, and of two writers racing for one
 * name exactly one wins. How depends on the store (docs/object-stores.md):
 *
 *  - local disk: the content goes to a temporary file, published by a hard link (`link(2)`
 *    fails with EEXIST, atomically). Hadoop's local `create(path, overwrite = false)` would not
 *    do: it checks existence and then opens the file, and two writers can both pass the check.
 *  - HDFS: a temporary file renamed with `FileContext.rename(..., Options.Rename.NONE)`, which
 *    the NameNode decides atomically.
 *  - stores whose Hadoop connector offers conditional creation (S3A from Hadoop 3.4.2 on: one
 *    PUT with `If-None-Match: *`, which S3 decides atomically since August 2024): the object is
 *    created only if absent and appears whole. Some S3-compatible servers ignore the header and
 *    overwrite; one probe per store and JVM finds them out, and they are treated as below.
 *  - anything else (a rename there is a copy, an existence check a separate request): refused,
 *    unless the session promises a single writer per table ([[SingleWriter]]), which then
 *    publishes by an existence check and a rename, safe only while nobody else commits.
 */
object PutIfAbsent {
  /** The session setting that opts into committing on stores without put-if-absent. */
  val SingleWriter = "spark.skipstone.tables.singleWriter"

  /** Hadoop's createFile() option for a create that fails if the file exists (If-None-Match: *). */
  private val ConditionalCreateOption = "fs.option.create.conditional.overwrite"

  /** How a store publishes a file only if absent. */
  sealed trait Method
  object Method {
    case object HardLink extends Method
    case object AtomicRename extends Method
    case object ConditionalCreate extends Method
    /** A check and a rename: atomic only against readers, not against another writer. */
    case object SingleWriterRename extends Method
  }

  /** True if this call created `target`; false if it existed already. */
  def write(conf: Configuration, target: Path, content: String): Boolean = {
    val fs = target.getFileSystem(conf)
    val qualified = fs.makeQualified(target)
    val bytes = content.getBytes(StandardCharsets.UTF_8)
    method(fs, qualified, conf) match {
      case Method.HardLink => linkLocally(qualified, bytes)
      case Method.ConditionalCreate => createConditionally(fs, qualified, bytes)
      case Method.AtomicRename | Method.SingleWriterRename => renameInto(fs, conf, qualified, bytes)
    }
  }

  /** How `target`'s store publishes; throws [[UnsafeCommit]] where it cannot, unless single-writer. */
  def method(fs: FileSystem, target: Path, conf: Configuration): Method =
    fs.getScheme match {
      case "file" => Method.HardLink
      case "hdfs" => Method.AtomicRename
      case _ if fs.hasPathCapability(target, ConditionalCreateOption) && conditionHonoured(fs, target.getParent) =>
        Method.ConditionalCreate
      case _ if conf.getBoolean(SingleWriter, false) => Method.SingleWriterRename
      case _ => throw new UnsafeCommit(target, fs.getUri)
    }

  private def linkLocally(target: Path, bytes: Array[Byte]): Boolean = {
    val local = Paths.get(target.toUri)
    val tmpLocal = Paths.get(temporary(target).toUri)
    Files.createDirectories(local.getParent)
    Files.write(tmpLocal, bytes)
    try { Files.createLink(local, tmpLocal); true }
    catch { case _: NioExists => false }
    finally Files.deleteIfExists(tmpLocal)
  }

  private def renameInto(fs: FileSystem, conf: Configuration, target: Path, bytes: Array[Byte]): Boolean = {
    val tmp = temporary(target)
    val out = fs.create(tmp, false)
    try out.write(bytes) finally out.close()
    try {
      FileContext.getFileContext(target.toUri, conf).rename(tmp, target, Options.Rename.NONE)
      true
    } catch {
      case _: FileAlreadyExistsException => false
    } finally Try(fs.delete(tmp, false))
  }

  /** How often a conditional PUT that met another in flight (S3's 409) is tried again. */
  private val InFlightRetries = 5

  /**
   * One conditional create. The object is uploaded when the stream closes, so that is where a
   * lost race shows: S3 answers 412, which S3A reports as a `RemoteFileChangedException`.
   * S3 may also answer 409 while another conditional PUT of the same key is in flight; the
   * attempt is then repeated, and meets the winner's object.
   */
  private def createConditionally(fs: FileSystem, target: Path, bytes: Array[Byte], attempt: Int = 1): Boolean = {
    val out = fs.createFile(target).overwrite(false).must(ConditionalCreateOption, true).build()
    // closing uploads what was written: after a failed write, abort so that no partial entry appears
    try out.write(bytes) catch { case e: Throwable => Try(out.abort()); throw e }
    try { out.close(); true } catch {
      case e: IOException if causes(e).exists(lostRace) => false
      case e: IOException if attempt < InFlightRetries && causes(e).exists(inFlight) =>
        Thread.sleep(50L * attempt)
        createConditionally(fs, target, bytes, attempt + 1)
    }
  }

  private def causes(e: Throwable): Iterator[Throwable] = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(8)

  // By name: S3A's classes are not on Skipstone's compile class path (hadoop-aws is the user's).
  private def lostRace(e: Throwable): Boolean = e match {
    case _: FileAlreadyExistsException => true
    case _ => e.getClass.getName == "org.apache.hadoop.fs.s3a.RemoteFileChangedException"
  }

  private def inFlight(e: Throwable): Boolean = Option(e.getMessage).exists(_.contains("ConditionalRequestConflict"))

  /** Per store (scheme and bucket): whether it refuses a conditional create of an existing object. */
  private val honoured = new ConcurrentHashMap[java.net.URI, java.lang.Boolean]()

  /**
   * Whether the store honours a conditional create, found out once per store and JVM by
   * creating a probe object twice: the second must be refused. A server that ignores
   * `If-None-Match` overwrites instead, and would let two writers commit the same version.
   */
  private def conditionHonoured(fs: FileSystem, dir: Path): Boolean =
    honoured.computeIfAbsent(fs.getUri, _ => {
      val probe = new Path(dir, s".put-if-absent-probe-${UUID.randomUUID()}")
      try java.lang.Boolean.valueOf(createConditionally(fs, probe, Array[Byte](1)) &&
        !createConditionally(fs, probe, Array[Byte](2)))
      finally Try(fs.delete(probe, false))
    }).booleanValue()

  private def temporary(target: Path): Path =
    new Path(target.getParent, s".${target.getName}.${UUID.randomUUID()}.tmp")
}

/** A commit refused because the store cannot create a file only if it is absent. */
class UnsafeCommit(target: Path, store: java.net.URI) extends UnsupportedOperationException(
  s"cannot commit $target: $store cannot create a file only if it is absent (its Hadoop connector offers " +
    "neither a conditional create that the store honours nor an atomic rename), so two writers could both " +
    "commit one version and the rows of one would be lost. If only one writer at a time ever commits to " +
    s"each table there, set ${PutIfAbsent.SingleWriter}=true (single-writer mode, docs/object-stores.md).")
