package io.skipstone.metadata

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession


/**
 * The driver's memory of each dataset's current metadata version.
 *
 * Planning asks "is this relation indexed?" for every relation of every query, so a warm answer
 * must cost no file-system call: entries are trusted for `spark.skipstone.metadataCacheTtlSeconds`
 * and then revalidated with one listing. A stale entry never causes a wrong answer, because every
 * file is checked against its metadata row's identity before it is skipped.
 * Builds and drops made through this JVM invalidate the entry at once.
 *
 * The loaded versions together hold at most `spark.skipstone.metadataCache.maxBytes`: past it the
 * least recently used ones are evicted (and loaded again when next queried). Keys are directory
 * names and values hold no SparkSession, so sessions that end are not kept alive by the cache.
 */
object MetadataCache extends Logging {
  /**
   * What is known of a dataset's newest version: its number (None: not indexed) and its
   * metadata, or None when that version is unusable. Unusable versions are decided once: the
   * warning is logged when the version is first seen, not on every query.
   */
  private case class Entry(checkedAtMillis: Long, version: Option[Long], metadata: Option[LoadedMetadata]) {
    def bytes: Long = metadata.fold(0L)(_.sizeBytes)
  }

  // Access order: iteration starts at the least recently used entry. Guarded by its own lock.
  private val entries = new java.util.LinkedHashMap[String, Entry](16, 0.75f, true)
  @volatile private var evictions = 0L // written under the lock; read for reporting

  def current(session: SparkSession, datasetRoot: String): Option[LoadedMetadata] = {
    val dir = MetadataStore.metadataDir(session, datasetRoot)
    val key = dir.toString
    val now = System.currentTimeMillis()
    val cached = entries.synchronized(Option(entries.get(key)))
    cached match {
      case Some(e) if now - e.checkedAtMillis < StoreConf.cacheTtlMillis(session) => e.metadata
      case _ =>
        // Loading happens outside the lock: other datasets' queries do not wait for it.
        val entry = try revalidate(session, dir, cached, now) catch {
          // Planning must not fail because the metadata directory cannot be listed: the
          // dataset counts as not indexed until the entry expires.
          case NonFatal(e) =>
            logWarning(s"Skipstone: cannot list metadata in $dir; all files of $datasetRoot are read: ${e.getMessage}")
            Entry(now, None, None)
        }
        put(key, entry, CacheConf.maxBytes(session))
        entry.metadata
    }
  }

  private def put(key: String, entry: Entry, maxBytes: Long): Unit = {
    val (replaced, evicted) = entries.synchronized {
      // A revalidated entry keeps its metadata: only a different one is given up.
      val replaced = Option(entries.put(key, entry)).flatMap(_.metadata).filterNot(m => entry.metadata.exists(_ eq m))
      var total = entries.values.asScala.map(_.bytes).sum
      val evicted = Seq.newBuilder[(String, Entry)]
      val eldestFirst = entries.entrySet().iterator()
      while (total > maxBytes && eldestFirst.hasNext) {
        val e = eldestFirst.next()
        if (e.getValue.bytes > 0) {
          total -= e.getValue.bytes
          evicted += e.getKey -> e.getValue
          eldestFirst.remove()
          evictions += 1
        }
      }
      (replaced, evicted.result())
    }
    replaced.foreach(_.release())
    evicted.foreach { case (k, e) =>
      e.metadata.foreach(_.release())
      logInfo(s"Skipstone: metadata version ${e.version.getOrElse("-")} in $k evicted from the cache " +
        s"(${e.bytes} bytes; ${CacheConf.MaxBytes} is $maxBytes)")
    }
  }

  /** Removes every version of the dataset's metadata (never the data) and forgets the cached ones. */
  def drop(session: SparkSession, datasetRoot: String): Boolean = {
    val dropped = MetadataStore.drop(session, datasetRoot)
    invalidate(session, datasetRoot)
    dropped
  }

  def invalidate(session: SparkSession, datasetRoot: String): Unit = {
    val removed = entries.synchronized(Option(entries.remove(MetadataStore.metadataDir(session, datasetRoot).toString)))
    removed.flatMap(_.metadata).foreach(_.release())
  }

  def clear(): Unit = {
    val all = entries.synchronized { val v = entries.values.asScala.toList; entries.clear(); v }
    all.flatMap(_.metadata).foreach(_.release())
  }

  /** SparkSessions reachable from the cached versions: always 0 (see [[CacheAudit]]). */
  def sessionsReachable(): Int =
    CacheAudit.sessionsReachable(entries.synchronized(entries.values.asScala.toList).flatMap(_.metadata))

  /** The cached versions, least recently used first, with their bytes by index kind; JSON. */
  def describe(): String = {
    val all = entries.synchronized(entries.asScala.toList)
    JsonMethods.compact(JsonMethods.render(
      ("bytes" -> all.map(_._2.bytes).sum) ~ ("evictions" -> evictions) ~
        ("decodedBytes" -> DecodedCells.usedBytes) ~
        ("versions" -> all.collect { case (dir, Entry(_, Some(v), Some(m))) =>
          ("dir" -> dir) ~ ("version" -> v) ~ ("files" -> m.filesInTable) ~ ("distributed" -> m.isDistributed) ~
            ("bytes" -> m.sizeBytes) ~
            ("bytesPerFile" -> m.sizeBytes.toDouble / math.max(1, m.fileCount)) ~
            ("bytesByKind" -> m.bytesByKind.map { case (k, b) => k -> b }.toMap) ~
            ("bytesByIndex" -> m.bytesByIndex.map { case (k, b) => k -> b }.toMap) ~
            ("decodedCells" -> m.decodedCounts)
        })))
  }

  private def revalidate(session: SparkSession, dir: Path, cached: Option[Entry], now: Long): Entry =
    MetadataStore.latestVersion(session, dir) match {
      case v @ Some(_) if cached.exists(_.version == v) => cached.get.copy(checkedAtMillis = now)
      case Some(v) => Entry(now, Some(v), loadOrWarn(session, dir, v))
      case None => Entry(now, None, None)
    }

  /**
   * A given version of the dataset's metadata: the one a managed table's version records for
   * its files. The cached newest version when it is that one (the usual case); otherwise read
   * from disk, uncached: versions are immutable, and only a query pinned to a table version
   * whose metadata is no longer the newest asks for one.
   */
  def at(session: SparkSession, datasetRoot: String, version: Long): Option[LoadedMetadata] =
    current(session, datasetRoot).filter(_.version == version).orElse(
      loadOrWarn(session, MetadataStore.metadataDir(session, datasetRoot), version))

  /**
   * The version, or None if it cannot be used (unreadable, corrupt, written by a newer
   * Skipstone, base columns missing). Read on the driver with Spark's Parquet reader: no Spark
   * job ever starts inside a query's planning for metadata.
   */
  private def loadOrWarn(session: SparkSession, dir: Path, version: Long): Option[LoadedMetadata] =
    try {
      val loaded = load(session, dir, version)
      loaded.problems.foreach(p => logWarning(s"Skipstone: metadata version $version in $dir: $p; that index is not used"))
      Some(loaded)
    } catch {
      case NonFatal(e) =>
        logWarning(s"Skipstone: metadata version $version in $dir cannot be used (${e.getMessage}); " +
          "the dataset's files are all read until it is rebuilt")
        None
    }

  private def load(session: SparkSession, dir: Path, version: Long): LoadedMetadata = {
    val versionDir = MetadataStore.versionDir(dir, version)
    val definition = MetadataStore.readDefinition(session, versionDir)
    val tableDir = MetadataStore.tableDir(versionDir)
    val footprint = MetadataReader.footprint(session, tableDir).getOrElse(
      throw new IllegalStateException(s"$tableDir was not written by Spark (no Spark schema in its footers)"))
    val problems = MetadataTypes.baseProblems(footprint.schema)
    if (problems.nonEmpty) throw new IllegalStateException(problems.mkString("; "))
    // Column values, plus a null flag per column and a path-lookup slot pair per file.
    val heldBytes = footprint.uncompressedBytes + footprint.rows * (footprint.schema.length + 8L)
    val loaded =
      if (CacheConf.distributed(session, footprint.rows, heldBytes))
        new LoadedMetadata(version, definition, MetadataColumns.empty(footprint.schema), Some(tableDir.toString),
          Some(footprint.rows))
      else new LoadedMetadata(version, definition, MetadataReader.read(session, footprint))
    logInfo(s"Loaded Skipstone metadata version $version of ${definition.datasetRoot}: ${loaded.filesInTable} files, " +
      (if (loaded.isDistributed) "evaluated with Spark over its table" else s"${loaded.sizeBytes} bytes on the driver"))
    loaded
  }
}
