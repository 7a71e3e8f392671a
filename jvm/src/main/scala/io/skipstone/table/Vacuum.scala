package io.skipstone.table

import java.nio.charset.StandardCharsets
import java.util.UUID

import scala.jdk.CollectionConverters._
import scala.util.Try
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.StructType
import org.json4s._
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import io.skipstone.metadata.{DirectoryListing, MetadataCache, MetadataStore, ParquetFileStore}

/**
 * Deletes what no retained version of a managed table needs, and nothing else.
 *
 * A version is retained when it is the newest or was still the newest less than the retention
 * ago (a query may still be reading it). Deleted are, under the table's root only:
 *  - `data`: files some version listed and no retained version lists (found from the log, no
 *    listing of the data directory);
 *  - `absorbed`: files other writers dropped in whose rows every retained version holds in its
 *    own files (an optimize absorbed them);
 *  - `orphan`: files Skipstone wrote (`b<block>-...`) that no version lists, older than the
 *    retention — left by a writer that died before committing (one listing of the root);
 *  - `metadata`: skipping-metadata versions no retained version records, published before the
 *    retention;
 *  - `sample`: layout samples no retained version uses, older than the retention;
 *  - `staging`: staging directories of operations and metadata builds older than the retention;
 *  - `workload`: the workload log's files, once compacted into one ([[WorkloadLogCompaction]]),
 *    which also drops records older than `workloadLog.retentionDays`.
 * Files dropped into the root by other writers are table data (the unindexed revision), never
 * deleted before absorbed (and only while they hold the bytes absorbed). Writers in flight hold
 * leases ([[WriterLeases]]) that every vacuum honours, forced or not: their read version and
 * what they made since they started are kept. The list is written as a deletion intent before anything is deleted; a vacuum
 * that finds an intent finishes it first, re-checking every path against the log.
 */
object Vacuum extends org.apache.spark.internal.Logging {
  import TableSettings.{DefaultRetentionHours, RetentionCheck, RetentionHours}
  /** A file's modification time may trail the lease that covers it by this much (coarse clocks). */
  private val LeaseSlackMillis = 2000L
  val Schema: StructType = StructType.fromDDL("path STRING, kind STRING, size LONG")
  private val SkipstoneDataFile = """b\d+-.*""".r
  private implicit val formats: Formats = DefaultFormats

  private case class Candidate(path: Path, kind: String, size: Long)

  /** The table's configured retention in hours (the default when it sets none). */
  def retentionHours(session: SparkSession, root: String): Double =
    RetentionHours.read(newest(session.sessionState.newHadoopConf(), root).properties, root)

  /** One row per path deleted (or, with `dryRun`, that would be): path, kind, size in bytes. */
  def run(session: SparkSession, root: String, retentionHours: Double, dryRun: Boolean, force: Boolean): DataFrame = {
    val conf = session.sessionState.newHadoopConf()
    val latest = newest(conf, root)
    if (retentionHours.isNaN || retentionHours < 0)
      throw new VacuumRefused(s"vacuum of $root: retention must be >= 0 hours, got $retentionHours")
    // only vacuum's own settings: a table whose other settings are broken can still be vacuumed
    val floor = RetentionHours.read(latest.properties, root)
    // what went wrong, here; what to do about it is worded by the interface (SQL has no force)
    if (retentionHours < floor && !force) throw new VacuumRefused(
      s"vacuum of $root: a retention of $retentionHours hours is under the table's $floor hours " +
        s"(property ${RetentionHours.key}): files that running queries or lagging readers still use could be deleted.",
      Some(Hint(Hint.VacuumUnderTableRetention, Map("hours" -> retentionHours.toString, "floor" -> floor.toString))))
    if (retentionHours < DefaultRetentionHours && RetentionCheck.read(latest.properties, root) && !force) throw new VacuumRefused(
      s"vacuum of $root: a retention of $retentionHours hours is under the default $DefaultRetentionHours hours: " +
        "files that running queries or lagging readers still use could be deleted.",
      Some(Hint(Hint.VacuumUnderDefaultRetention, Map("hours" -> retentionHours.toString,
        "default" -> DefaultRetentionHours.toString))))
    val rootPath = new Path(root)
    val fs = rootPath.getFileSystem(conf)
    val guard = new RootGuard(fs, fs.makeQualified(rootPath))
    val cutoff = System.currentTimeMillis() - (retentionHours * 3600 * 1000).toLong

    val unfinished = intents(fs, root)
    if (!dryRun) unfinished.foreach(finish(session, conf, fs, root, guard, _))
    val planned = candidates(session, conf, fs, root, cutoff).filter(c => guard.allows(c.path))
    val rows = if (dryRun) unfinished.flatMap(readIntent(fs, _)._2).filter(c => guard.allows(c.path)) ++ planned
      else {
        if (planned.nonEmpty) {
          val intent = writeIntent(fs, root, cutoff, planned)
          Failpoints.check("vacuum.afterIntent")
          deleteAll(fs, guard.root, planned)
          Failpoints.check("vacuum.beforeIntentRemoved")
          fs.delete(intent, false)
        }
        MetadataCache.invalidate(session, root)
        planned
      }
    val compacted = compactWorkloadLog(session, root, latest, dryRun)
    session.createDataFrame((rows ++ compacted).map(c => Row(c.path.toString, c.kind, c.size)).asJava, Schema)
  }

  /**
   * The workload log's files a compaction replaces (and, dry, would): the log is the policies'
   * evidence, not table data, so a failure is warned about and leaves the vacuum's result as it is.
   */
  private def compactWorkloadLog(session: SparkSession, root: String, latest: Snapshot,
                                 dryRun: Boolean): Seq[Candidate] = {
    val days = TableSettings.WorkloadLogRetentionDays.read(latest.properties, root)
    try {
      val done = WorkloadLogCompaction.run(session, root, Some((days * 86400000.0).toLong),
        System.currentTimeMillis(), dryRun)
      val dir = WorkloadLog.dir(root)
      (done.replaced ++ done.leftovers).map(f => Candidate(new Path(dir, f.name), "workload", f.length))
    } catch {
      case e: InjectedFailure => throw e
      case NonFatal(e) =>
        logWarning(s"Skipstone: vacuum of $root could not compact its workload log", e)
        Nil
    }
  }

  private def newest(conf: Configuration, root: String): Snapshot =
    TableLog.latest(conf, root).getOrElse(throw new VacuumRefused(
      s"$root is not a Skipstone table (no log under $root/${TableLog.ContainerDir}/log)",
      Some(Hint(Hint.CreateTable, Map("root" -> root)))))

  /** The newest version, and every version that was the newest at some time after `cutoff`. */
  private[table] def retained(all: Seq[Snapshot], cutoff: Long): Seq[Snapshot] =
    all.zip(all.drop(1).map(s => Some(s.timestampMillis)) :+ None).collect {
      case (s, None) => s
      case (s, Some(supersededAt)) if supersededAt > cutoff => s
    }

  private def candidates(session: SparkSession, conf: Configuration, fs: FileSystem, root: String,
                         cutoff: Long): Seq[Candidate] = {
    // Listed first, then the leases, then the log. A file listed was made by a writer that took
    // its lease before making it: at the lease scan that writer still holds it (its files are
    // kept) or has released it, after committing (the log read next lists its files) or after
    // removing them. Read in another order, a writer that committed and released in between
    // would have its committed files taken for a dead writer's.
    val container = new Path(root, TableLog.ContainerDir)
    val metadataDir = MetadataStore.metadataDir(session, root)
    val inRoot = fs.listStatus(new Path(root)).toSeq
    // Skipstone's data files live in the root: their statuses come from this one listing, not
    // from a request per file (on object stores each costs a HEAD)
    val inRootByName = inRoot.iterator.map(s => s.getPath.getName -> s).toMap
    def statusInRoot(relative: String): Option[FileStatus] =
      if (relative.contains("/")) status(fs, new Path(root + "/" + relative)) else inRootByName.get(relative)
    val inMetadataDir = children(fs, metadataDir)
    val metadataVersions = ParquetFileStore.versionsIn(inMetadataDir)
      .flatMap(v => status(fs, ParquetFileStore.definitionFile(ParquetFileStore.versionDir(metadataDir, v))).map(v -> _))
    val metadataStaging = inMetadataDir.filter(s => s.getPath.getName.startsWith("_staging-"))
    val sampleDirs = children(fs, new Path(container, "sample"))
    val staging = children(fs, new Path(container, "staging")) ++ metadataStaging

    val (leases, lapsed) = WriterLeases.scan(conf, root, System.currentTimeMillis())
    val all = TableLog.versions(conf, root).map(TableLog.read(conf, root, _))
    val kept = withLeased(retained(all, cutoff), all, leases)
    // what a writer in flight may have made: kept whatever the retention, even when forced
    val leasedSince = leases.map(_.sinceMillis).minOption.map(_ - LeaseSlackMillis)
    def leased(s: FileStatus): Boolean =
      leasedSince.exists(s.getModificationTime >= _) || leases.exists(_.staging.exists(st => sameDir(s.getPath, st)))
    val live = kept.flatMap(_.files.map(_.path)).toSet
    val known = all.iterator.flatMap(_.files.iterator.map(_.path)).toSet
    val data = (known -- live).toSeq.sorted.flatMap(statusInRoot)
      .map(s => Candidate(s.getPath, "data", s.getLen))

    // Another writer's file is table data until an optimize absorbed it in every retained version.
    // ...and only while it holds the bytes absorbed: a file its writer replaced under the same name is new data.
    val absorbed = kept.map(_.absorbed).reduceOption(_ intersect _).getOrElse(Set.empty).toSeq.sortBy(_.path)
      .flatMap(a => statusInRoot(a.path).filter(a.matches))
      .map(s => Candidate(s.getPath, "absorbed", s.getLen))

    val orphans = inRoot.filter { s =>
      s.isFile && SkipstoneDataFile.pattern.matcher(s.getPath.getName).matches() &&
        !known.contains(s.getPath.getName) && s.getModificationTime < cutoff && !leased(s)
    }.map(s => Candidate(s.getPath, "orphan", s.getLen))

    val referencedMetadata = kept.flatMap(_.metadataVersion).toSet
    val metadata = metadataVersions.filterNot { case (v, _) => referencedMetadata(v) }.collect {
      case (v, definition) if definition.getModificationTime < cutoff && !leased(definition) =>
        val dir = ParquetFileStore.versionDir(metadataDir, v)
        Candidate(dir, "metadata", fs.getContentSummary(dir).getLength)
    }
    val usedSamples = kept.flatMap(_.properties.get("layout.sample")).map(p => new Path(root + "/" + p).getName).toSet
    val samples = sampleDirs.filterNot(s => usedSamples(s.getPath.getName))

    // A directory's age is that of the newest file in it: object stores keep no time for a
    // directory (S3A reports the listing's). One recursive listing gives the age and the size.
    def aged(kind: String, entries: Seq[FileStatus]) = entries.flatMap { s =>
      val (newest, size) = contents(fs, s.getPath)
      // An empty directory is as old as itself where directories are real (a writer may have
      // just made it and is about to write into it). On an object store a directory is only a
      // marker whose time is the listing's: an empty one holds nothing and writing under its
      // prefix does not need it, so it is removable.
      val emptySince = if (RealDirectories.contains(fs.getScheme)) s.getModificationTime else Long.MinValue
      val written = new FileStatus(size, true, 0, 0L, newest.getOrElse(emptySince), s.getPath)
      Option.when(written.getModificationTime < cutoff && !leased(written))(Candidate(s.getPath, kind, size))
    }
    val lapsedLeases = lapsed.flatMap(status(fs, _)).map(s => Candidate(s.getPath, "lease", s.getLen))
    data ++ absorbed ++ orphans ++ metadata ++ aged("sample", samples) ++ aged("staging", staging) ++ lapsedLeases
  }

  /** The retained versions plus every version a live writer read or could rebase onto. */
  private def withLeased(kept: Seq[Snapshot], all: Seq[Snapshot], leases: Seq[WriterLeases.Lease]): Seq[Snapshot] =
    leases.map(_.readVersion).minOption.fold(kept) { from =>
      val keptVersions = kept.map(_.version).toSet
      all.filter(s => keptVersions(s.version) || s.version >= from)
    }

  /** The modification time of the newest file under `dir` (None when it holds none) and their bytes. */
  private def contents(fs: FileSystem, dir: Path): (Option[Long], Long) = {
    val files = fs.listFiles(dir, true)
    var newest = Option.empty[Long]
    var bytes = 0L
    while (files.hasNext) {
      val f = files.next()
      newest = Some(newest.fold(f.getModificationTime)(math.max(_, f.getModificationTime)))
      bytes += f.getLen
    }
    (newest, bytes)
  }

  private def sameDir(p: Path, staging: String): Boolean =
    Try(p.toUri.getPath.stripSuffix("/") == new Path(staging).toUri.getPath.stripSuffix("/")).getOrElse(false)

  private def status(fs: FileSystem, p: Path): Option[FileStatus] = Try(fs.getFileStatus(p)).toOption

  /** One listing, no existence check first (on object stores that check costs requests of its own). */
  private def children(fs: FileSystem, dir: Path): Seq[FileStatus] =
    DirectoryListing.orEmpty(fs, dir)

  // -- deletion intents ---------------------------------------------------------------------

  private def intentDir(root: String): Path = new Path(new Path(root, TableLog.ContainerDir), "vacuum")

  private def intents(fs: FileSystem, root: String): Seq[Path] =
    children(fs, intentDir(root)).map(_.getPath).filter(_.getName.endsWith(".json")).sortBy(_.getName)

  /** Written whole under a temporary name and renamed, so an intent is never read half written. */
  private def writeIntent(fs: FileSystem, root: String, cutoff: Long, planned: Seq[Candidate]): Path = {
    val paths = JArray(planned.map(c => ("path" -> c.path.toString) ~ ("kind" -> c.kind) ~ ("size" -> c.size): JValue).toList)
    val json = ("cutoff" -> cutoff) ~ ("paths" -> paths)
    val name = f"${System.currentTimeMillis()}%020d-${UUID.randomUUID()}"
    val tmp = new Path(intentDir(root), s".$name.tmp")
    val out = fs.create(tmp, false)
    try out.write(JsonMethods.compact(JsonMethods.render(json)).getBytes(StandardCharsets.UTF_8)) finally out.close()
    val intent = new Path(intentDir(root), s"$name.json")
    require(fs.rename(tmp, intent), s"could not publish the vacuum intent $intent")
    intent
  }

  /** The intent's cutoff and its paths. */
  private def readIntent(fs: FileSystem, intent: Path): (Long, Seq[Candidate]) = {
    val in = fs.open(intent)
    val json = try JsonMethods.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8)) finally in.close()
    ((json \ "cutoff").extract[Long], (json \ "paths").children.map(j =>
      Candidate(new Path((j \ "path").extract[String]), (j \ "kind").extract[String], (j \ "size").extract[Long])))
  }

  /**
   * Completes the intent of a vacuum that died: deletes what it listed except anything that the
   * versions retained at its cutoff now list or record (the log is re-read, and holds any version
   * committed since: an intent is never trusted over it), then removes the intent.
   */
  private def finish(session: SparkSession, conf: Configuration, fs: FileSystem, root: String, guard: RootGuard,
                     intent: Path): Unit = {
    val (cutoff, listed) = readIntent(fs, intent)
    val all = TableLog.versions(conf, root).map(TableLog.read(conf, root, _))
    val kept = withLeased(retained(all, cutoff), all, WriterLeases.scan(conf, root, System.currentTimeMillis())._1)
    val live = kept.flatMap(_.files.map(f => new Path(root + "/" + f.path).getName)).toSet
    val metadataDir = MetadataStore.metadataDir(session, root)
    val recorded = kept.flatMap(_.metadataVersion).map(v => ParquetFileStore.versionDir(metadataDir, v).getName).toSet
    val samples = kept.flatMap(_.properties.get("layout.sample")).map(p => new Path(root + "/" + p).getName).toSet
    val absorbedByAll = kept.map(_.absorbed).reduceOption(_ intersect _).getOrElse(Set.empty)
    def deletable(c: Candidate): Boolean = c.kind match {
      case "absorbed" => absorbedByAll.exists(a => a.path == c.path.getName && status(fs, c.path).exists(a.matches))
      case "lease" => true
      case kind => !protectedNames(kind)(c.path.getName)
    }
    def protectedNames(kind: String): Set[String] = kind match {
      case "metadata" => recorded
      case "sample" => samples
      case "staging" => Set.empty
      case _ => live
    }
    deleteAll(fs, guard.root, listed.filter(c => guard.allows(c.path) && deletable(c)))
    fs.delete(intent, false)
  }

  /** Kinds whose candidates are directories, deleted with what they hold. */
  private val DirectoryKinds = Set("metadata", "sample", "staging")
  /** File systems whose directories exist on their own, with a time of their own. */
  private val RealDirectories = Set("file", "hdfs", "viewfs")

  /**
   * Deletes the planned paths, half of them before the failpoint `vacuum.halfDeleted`. Files go
   * through the store's bulk delete: on S3 one request per page of them, where a plain delete
   * costs a HEAD, a DELETE and a LIST (for the parent's marker) per file. Directories are
   * deleted one by one, with what they hold.
   */
  private def deleteAll(fs: FileSystem, root: Path, planned: Seq[Candidate]): Unit = if (planned.nonEmpty) {
    val (first, second) = planned.splitAt(planned.size / 2)
    deletePaths(fs, root, first)
    Failpoints.check("vacuum.halfDeleted")
    deletePaths(fs, root, second)
  }

  private def deletePaths(fs: FileSystem, root: Path, candidates: Seq[Candidate]): Unit = {
    val (directories, files) = candidates.partition(c => DirectoryKinds(c.kind))
    if (files.nonEmpty) {
      val bulk = fs.createBulkDelete(root)
      try files.map(_.path).grouped(bulk.pageSize()).foreach { page =>
        val failed = bulk.bulkDelete(page.asJava).asScala
        if (failed.nonEmpty) throw new java.io.IOException(s"vacuum of $root could not delete " +
          failed.take(3).map(f => s"${f.getKey} (${f.getValue})").mkString(", ") +
          (if (failed.size > 3) s" and ${failed.size - 3} more" else ""))
      } finally bulk.close()
    }
    directories.foreach(c => fs.delete(c.path, true))
  }
}

/** Why a vacuum did not start (bad retention, not a table); nothing was deleted. */
class VacuumRefused(message: String, override val hint: Option[Hint] = None)
  extends IllegalArgumentException(message) with Hinted
