package io.skipstone.metadata

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.types.StructType


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
 *
 * An encrypted version is never handed to a session as another session loaded it: each query
 * first learns which of the version's keys its own session can use ([[KeyAccess]], asked of
 * Parquet with that session's configuration), and gets the version loaded for exactly that
 * access, whose columns are those of the indexes it can decrypt. Sessions with the same access
 * share one loaded version; the cache holds one per access in use.
 */
object MetadataCache extends Logging {
  /**
   * What is known of a dataset's newest version: its number (None: not indexed), its definition
   * (None: unreadable), the store that holds it ([[MetadataStore.location]]) and the directory of
   * its table, and its metadata loaded for each access shape asked so far ([[KeyAccess.shape]];
   * a plaintext version has one), None when that version is unusable. Unusable versions are
   * decided once: the warning is logged when the version is first seen, not on every query.
   */
  private case class Entry(checkedAtMillis: Long, store: String, version: Option[Long], tableDir: Option[Path],
                           definition: Option[DatasetIndex], loaded: Map[Option[Set[String]], Option[LoadedMetadata]]) {
    def bytes: Long = metadata.map(_.sizeBytes).sum
    def metadata: Seq[LoadedMetadata] = loaded.values.flatten.toSeq
  }

  // Access order: iteration starts at the least recently used entry. Guarded by its own lock.
  private val entries = new java.util.LinkedHashMap[String, Entry](16, 0.75f, true)
  @volatile private var evictions = 0L // written under the lock; read for reporting

  /** The dataset's newest metadata version as this session may use it, or None (not indexed, unusable). */
  def current(session: SparkSession, datasetRoot: String): Option[LoadedMetadata] = {
    val dir = MetadataStore.metadataDir(session, datasetRoot)
    val key = dir.toString
    val now = System.currentTimeMillis()
    val cached = entries.synchronized(Option(entries.get(key)))
    val entry = cached match {
      case Some(e) if now - e.checkedAtMillis < StoreConf.cacheTtlMillis(session) => e
      case _ =>
        // Loading happens outside the lock: other datasets' queries do not wait for it.
        val entry = try revalidate(session, datasetRoot, cached, now) catch {
          // Planning must not fail because the metadata directory cannot be listed: the
          // dataset counts as not indexed until the entry expires.
          case NonFatal(e) =>
            logWarning(s"Skipstone: cannot list metadata in $dir; all files of $datasetRoot are read: ${e.getMessage}")
            Entry(now, "", None, None, None, Map.empty)
        }
        put(key, entry, CacheConf.maxBytes(session))
        entry
    }
    for {
      version <- entry.version
      tableDir <- entry.tableDir
      definition <- entry.definition
      access <- accessOrWarn(session, tableDir, version, definition)
      metadata <- entry.loaded.get(access.shape) match {
        case Some(loaded) => loaded
        case None =>
          val loaded = loadOrWarn(session, tableDir, version, definition, access)
          // An entry revalidated meanwhile (a newer version) is not given this version's metadata.
          putLoaded(key, tableDir, version, access.shape, loaded, CacheConf.maxBytes(session))
          loaded
      }
    } yield metadata
  }

  /** What this session can decrypt of the version; None (the dataset is read in full) if it cannot be told. */
  private def accessOrWarn(session: SparkSession, tableDir: Path, version: Long, definition: DatasetIndex): Option[KeyAccess] =
    try Some(KeyAccess.of(session, tableDir, definition)) catch {
      case NonFatal(e) =>
        logWarning(s"Skipstone: cannot tell which keys of metadata version $version in $tableDir this session holds " +
          s"(${e.getMessage}); the dataset's files are all read")
        None
    }

  private def putLoaded(key: String, tableDir: Path, version: Long, shape: Option[Set[String]],
                        loaded: Option[LoadedMetadata], maxBytes: Long): Unit =
    entries.synchronized(Option(entries.get(key))).filter(e => e.version.contains(version) && e.tableDir.contains(tableDir)) match {
      case Some(e) => put(key, e.copy(loaded = e.loaded.updated(shape, loaded)), maxBytes)
      case None => loaded.foreach(_.release()) // a newer version was published meanwhile
    }

  private def put(key: String, entry: Entry, maxBytes: Long): Unit = {
    val (replaced, evicted) = entries.synchronized {
      // A revalidated entry keeps its metadata, and what other sessions loaded of the same version
      // meanwhile: only a different one is given up.
      val previous = Option(entries.get(key))
      val merged = previous.filter(p => p.version == entry.version && p.tableDir == entry.tableDir).fold(entry)(p => entry.copy(loaded = p.loaded ++ entry.loaded))
      val replaced = Option(entries.put(key, merged)).toSeq.flatMap(_.metadata).filterNot(m => merged.metadata.exists(_ eq m))
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
    removed.toSeq.flatMap(_.metadata).foreach(_.release())
  }

  def clear(): Unit = {
    val all = entries.synchronized { val v = entries.values.asScala.toList; entries.clear(); v }
    all.flatMap(_.metadata).foreach(_.release())
    KeyAccess.clear()
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
        // one per access shape loaded (see KeyAccess): a plaintext version has one
        ("versions" -> all.flatMap { case (dir, e) => e.version.toSeq.flatMap(v => e.metadata.map(m => (dir, v, m))) }.map {
          case (dir, v, m) =>
          ("dir" -> dir) ~ ("version" -> v) ~ ("files" -> m.filesInTable) ~ ("distributed" -> m.isDistributed) ~
            ("bytes" -> m.sizeBytes) ~
            ("bytesPerFile" -> m.sizeBytes.toDouble / math.max(1, m.fileCount)) ~
            ("bytesByKind" -> m.bytesByKind.map { case (k, b) => k -> b }.toMap) ~
            ("bytesByIndex" -> m.bytesByIndex.map { case (k, b) => k -> b }.toMap) ~
            ("decodedCells" -> m.decodedCounts)
        })))
  }

  /**
   * The dataset's newest version as its store says now. The same version of the same store keeps
   * what was loaded of it; a dataset whose metadata moved to another store starts afresh, even
   * at the same version number.
   */
  private def revalidate(session: SparkSession, datasetRoot: String, cached: Option[Entry], now: Long): Entry = {
    val located = MetadataStore.locate(session, datasetRoot)
    val store = located.store.location
    located.versions.lastOption match {
      case v @ Some(_) if cached.exists(e => e.version == v && e.store == store) => cached.get.copy(checkedAtMillis = now)
      case Some(v) =>
        val tableDir = located.store.tableDir(v)
        Entry(now, store, Some(v), Some(tableDir), definitionOrWarn(located.store, v), Map.empty)
      case None => Entry(now, store, None, None, None, Map.empty)
    }
  }

  /**
   * A given version of the dataset's metadata: the one a managed table's version records for
   * its files. The cached newest version when it is that one (the usual case); otherwise read
   * from disk, uncached: versions are immutable, and only a query pinned to a table version
   * whose metadata is no longer the newest asks for one.
   */
  def at(session: SparkSession, datasetRoot: String, version: Long): Option[LoadedMetadata] =
    current(session, datasetRoot).filter(_.version == version).orElse {
      val store = MetadataStore.of(session, datasetRoot)
      val tableDir = store.tableDir(version)
      for {
        definition <- definitionOrWarn(store, version)
        access <- accessOrWarn(session, tableDir, version, definition)
        loaded <- loadOrWarn(session, tableDir, version, definition, access)
      } yield loaded
    }

  private def definitionOrWarn(store: MetadataStore, version: Long): Option[DatasetIndex] =
    try Some(store.readDefinition(version)) catch {
      case NonFatal(e) =>
        logWarning(s"Skipstone: metadata version $version in ${store.location} cannot be used (its definition: " +
          s"${e.getMessage}); the dataset's files are all read until it is rebuilt")
        None
    }

  /**
   * The version as a session with `access` may use it, or None if it cannot be used (unreadable,
   * corrupt, written by a newer Skipstone, base columns missing). Read on the driver with Spark's
   * Parquet reader: no Spark job ever starts inside a query's planning for metadata.
   */
  private def loadOrWarn(session: SparkSession, tableDir: Path, version: Long, definition: DatasetIndex,
                         access: KeyAccess): Option[LoadedMetadata] =
    try {
      val loaded = load(session, tableDir, version, definition, access)
      loaded.problems.foreach(p => logWarning(s"Skipstone: metadata version $version in $tableDir: $p; that index is not used"))
      Some(loaded)
    } catch {
      case NonFatal(e) =>
        logWarning(s"Skipstone: metadata version $version in $tableDir cannot be used (${e.getMessage}); " +
          "the dataset's files are all read until it is rebuilt")
        None
    }

  private def load(session: SparkSession, tableDir: Path, version: Long, definition: DatasetIndex,
                   access: KeyAccess): LoadedMetadata = {
    val withheld = access.withheld(definition)
    // Nothing is readable: no file has metadata, and every index says why.
    if (access.footerDenied.isDefined)
      new LoadedMetadata(version, definition, MetadataColumns.empty(MetadataTypes.BaseSchema), withheld = withheld)
    else loadReadable(session, tableDir, version, definition, withheld)
  }

  private def loadReadable(session: SparkSession, tableDir: Path, version: Long, definition: DatasetIndex,
                           withheld: Seq[(IndexSpec, String)]): LoadedMetadata = {
    val written = MetadataReader.footprint(session, tableDir).getOrElse(
      throw new IllegalStateException(s"$tableDir was not written by Spark (no Spark schema in its footers)"))
    val problems = MetadataTypes.baseProblems(written.schema)
    if (problems.nonEmpty) throw new IllegalStateException(problems.mkString("; "))
    // The columns of withheld indexes are never read: the session could not decrypt them.
    val hidden = withheld.flatMap(_._1.metadataColumns.values).toSet
    val footprint = written.copy(schema = StructType(written.schema.filterNot(f => hidden(f.name))))
    // Column values, plus a null flag per column and a path-lookup slot pair per file.
    val heldBytes = footprint.uncompressedBytes + footprint.rows * (footprint.schema.length + 8L)
    val loaded =
      if (CacheConf.distributed(session, footprint.rows, heldBytes))
        new LoadedMetadata(version, definition, MetadataColumns.empty(footprint.schema), Some(tableDir.toString),
          Some(footprint.rows), withheld)
      else new LoadedMetadata(version, definition, MetadataReader.read(session, footprint), withheld = withheld)
    logInfo(s"Loaded Skipstone metadata version $version of ${definition.datasetRoot}: ${loaded.filesInTable} files, " +
      (if (loaded.isDistributed) "evaluated with Spark over its table" else s"${loaded.sizeBytes} bytes on the driver"))
    loaded
  }
}
