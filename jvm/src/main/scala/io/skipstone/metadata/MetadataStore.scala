package io.skipstone.metadata

import java.nio.charset.StandardCharsets
import java.security.MessageDigest

import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}

import org.apache.spark.sql.SparkSession

import io.skipstone.encryption.{EncryptionConf, ParquetFooters}


/**
 * Where one dataset's metadata versions live and how a new one is published atomically.
 *
 * Every store keeps a version as a definition (the JSON of [[DatasetIndex]]) and a metadata
 * table of Parquet files in one directory ([[tableDir]]), one row per data file: the query
 * path reads those files itself, on the driver, whichever store holds them. What differs is
 * where the list of versions lives and what makes a version visible:
 *  - [[ParquetFileStore]]: version directories beside the data (or under
 *    `spark.skipstone.metadataRoot`), published by one directory rename;
 *  - [[CatalogTableStore]]: a table of the session catalog per version, published by the
 *    catalog's create-table, so that permissions and discovery follow the catalog's.
 * In both, a version is visible whole or not at all, and of two publishers that want the same
 * version number one gets it and the other takes the next (docs/metadata.md, "Metadata stores").
 */
trait MetadataStore {
  /** The dataset's root as [[MetadataStore.qualify]] gives it. */
  def datasetRoot: String

  /** Where the versions live, as users name it: a directory, or `catalog:db.name`. */
  def location: String

  /** The published versions, oldest first (each call asks the store anew). */
  def versions(): Seq[Long]

  def latestVersion(): Option[Long] = versions().lastOption

  /** A published version's definition JSON, as written. */
  def definitionJson(version: Long): String

  def readDefinition(version: Long): DatasetIndex = DatasetIndex.fromJson(definitionJson(version))

  /** The directory of a published version's metadata table (Parquet files, one row per data file). */
  def tableDir(version: Long): Path

  /** The newest published version: its number, table directory and definition JSON. */
  def current(): Option[(Long, Path, String)] = latestVersion().map(v => (v, tableDir(v), definitionJson(v)))

  /** A new place to write a version's metadata table into ([[Staged.tableDir]]), invisible to readers. */
  def stage(): Staged

  /** Publishes what is staged, defined by `definitionJson`, as the next free version; returns it. */
  def publish(staged: Staged, definitionJson: String): Long

  /** Deletes a staged build that will not be published. */
  def abandon(staged: Staged): Unit

  /** Removes every version (never the data); true if there was any. */
  def drop(): Boolean
}

/** A build in progress: its metadata table is written as Parquet into [[tableDir]]. */
final case class Staged(dir: Path) {
  def tableDir: Path = new Path(dir, "table")
}

object MetadataStore {
  /** The dataset's root as a fully qualified URI string without a trailing slash: the cache key. */
  def qualify(session: SparkSession, path: String): String = qualify(session.sessionState.newHadoopConf(), path)

  def qualify(conf: Configuration, path: String): String = {
    val p = new Path(path)
    FilePaths.requireUnescaped(FilePaths.root(p.getFileSystem(conf).makeQualified(p).toUri))
  }

  /**
   * The dataset's metadata directory: its Parquet-file versions, or the pointer to the catalog
   * table that holds them. Pure string work, no file-system call: the query path uses it for
   * every relation.
   */
  def metadataDir(session: SparkSession, datasetRoot: String): Path =
    metadataDir(StoreConf.metadataRoot(session), datasetRoot)

  def metadataDir(metadataRoot: Option[String], datasetRoot: String): Path = metadataRoot match {
    case Some(root) => new Path(root, sha1(datasetRoot))
    case None => new Path(datasetRoot, ParquetFileStore.DefaultDirName)
  }

  /** A dataset's store and the versions it had when asked. */
  final case class Located(store: MetadataStore, versions: Seq[Long])

  /**
   * The store that holds the dataset's metadata, with its versions, from one listing of the
   * metadata directory: the catalog table its pointer names, if it has one, else the directory's
   * own Parquet-file versions. The pointer lives where the query path looks already, so finding
   * a dataset's store costs the planning of a query no call more than the file store did.
   */
  def locate(session: SparkSession, datasetRoot: String): Located = {
    val conf = session.sessionState.newHadoopConf()
    val dir = metadataDir(session, datasetRoot)
    val listing = DirectoryListing.orEmpty(dir.getFileSystem(conf), dir)
    StorePointer.in(conf, dir, listing) match {
      case Some(table) =>
        val store = new CatalogTableStore(session, table, datasetRoot, dir)
        Located(store, store.versions())
      case None => Located(new ParquetFileStore(conf, dir, datasetRoot), ParquetFileStore.versionsIn(listing))
    }
  }

  def of(session: SparkSession, datasetRoot: String): MetadataStore = locate(session, datasetRoot).store

  /**
   * The store a new version of the dataset goes to: the one `asked` for; else the one that holds
   * its metadata now; else, for a dataset without any, the session's `spark.skipstone.metadataStore`.
   * A managed table's metadata always stays in its files: its log records the versions it uses.
   */
  def forPublish(session: SparkSession, datasetRoot: String, asked: Option[StoreChoice]): MetadataStore = {
    val conf = session.sessionState.newHadoopConf()
    val dir = metadataDir(session, datasetRoot)
    lazy val located = locate(session, datasetRoot)
    val choice =
      if (ParquetFileStore.isManagedTable(dir.getFileSystem(conf), datasetRoot)) StoreChoice.Files
      else asked.getOrElse(located.store match {
        case catalog: CatalogTableStore => StoreChoice.Catalog(Some(catalog.table.database), Some(catalog.table.name))
        case _ if located.versions.nonEmpty => StoreChoice.Files
        case _ => StoreConf.metadataStore(session)
      })
    choice match {
      case StoreChoice.Files => new ParquetFileStore(conf, dir, datasetRoot)
      case c: StoreChoice.Catalog => new CatalogTableStore(session, c.table(session, datasetRoot), datasetRoot, dir)
    }
  }

  /** The newest published version of the dataset's metadata (see [[MetadataStore.current]]). */
  def current(session: SparkSession, datasetRoot: String): Option[(Long, Path, String)] =
    of(session, datasetRoot).current()

  /**
   * [[current]] without a session, for tools that have a Hadoop configuration only: the Parquet
   * files' versions. A dataset whose metadata is a catalog table says so, naming it: only a
   * session reaches the catalog.
   */
  def current(conf: Configuration, metadataRoot: Option[String], datasetRoot: String): Option[(Long, Path, String)] = {
    val dir = metadataDir(metadataRoot, datasetRoot)
    StorePointer.read(conf, dir).foreach { table => throw new IllegalStateException(
      s"the metadata of $datasetRoot is the catalog table ${table.versionPattern}: read it from a Spark session")
    }
    new ParquetFileStore(conf, dir, datasetRoot).current()
  }

  /** Removes every version of the dataset's metadata in any store (never the data). */
  def drop(session: SparkSession, datasetRoot: String): Boolean = {
    val conf = session.sessionState.newHadoopConf()
    val dir = metadataDir(session, datasetRoot)
    val inCatalog = locate(session, datasetRoot).store match {
      case catalog: CatalogTableStore => catalog.drop()
      case _ => false
    }
    new ParquetFileStore(conf, dir, datasetRoot).drop() || inCatalog
  }

  /**
   * Files a version's metadata table describes (it holds one row per data file) and the bytes it
   * takes, from the Parquet footers: no row is read.
   */
  def tableSize(conf: Configuration, tableDir: Path): (Long, Long) = {
    val parts = tableParts(conf, tableDir)
    val rows = parts.map { s =>
      val reader = ParquetFooters.open(conf, s)
      try reader.getRecordCount finally reader.close()
    }
    (rows.sum, parts.map(_.getLen).sum)
  }

  /** The bytes a version's metadata table takes, from a listing (no footer is read). */
  def tableBytes(conf: Configuration, tableDir: Path): Long = tableParts(conf, tableDir).map(_.getLen).sum

  /** The Parquet files of a version's metadata table. */
  def tableParts(conf: Configuration, tableDir: Path): Seq[FileStatus] =
    tableDir.getFileSystem(conf).listStatus(tableDir).toSeq.filter(s => s.isFile && s.getPath.getName.endsWith(".parquet"))

  /** Files a version's table describes, or None when `conf` holds no key to its encrypted footers. */
  def filesIndexed(conf: Configuration, tableDir: Path): Option[Long] =
    try Some(tableSize(conf, tableDir)._1) catch {
      case NonFatal(e) if EncryptionConf.keyFailure(e).isDefined => None
    }

  private[metadata] def sha1(s: String): String =
    MessageDigest.getInstance("SHA-1").digest(s.getBytes(StandardCharsets.UTF_8)).map(b => f"$b%02x").mkString
}
