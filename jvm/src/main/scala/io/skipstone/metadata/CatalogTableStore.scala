package io.skipstone.metadata

import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

import scala.util.Try
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.analysis.{NoSuchDatabaseException, NoSuchNamespaceException}
import org.apache.spark.sql.catalyst.catalog.{CatalogStorageFormat, CatalogTable, CatalogTableType}
import org.apache.spark.sql.types.StructType


/**
 * The metadata store of catalog tables: version `N` of a dataset's metadata is the Parquet table
 * `<database>.<name>__v<N>` of the session catalog (the in-memory one, or the Hive metastore
 * with `enableHiveSupport`). Its rows are the metadata rows, its location the version's table
 * directory, its properties the definition; so who may read the metadata, and where users find
 * it (`SHOW TABLES`, `SELECT * FROM db.name__v3`), are the catalog's to say.
 *
 * Publishing is the catalog's create-table of the next version's table, over a directory
 * written in full before: a reader lists the version tables and sees a version whole or not at
 * all, and create-table fails for a name that exists, so of two publishers that want one number
 * one gets it and the other takes the next. The in-memory catalog decides that under its lock
 * (one application; the tables vanish with it), the Hive metastore in its database's
 * transaction (every application that shares it). One table per version, not one table whose
 * location or properties are altered: neither catalog has a compare-and-set alter, so two
 * publishers altering one table could both succeed and the older one land last.
 *
 * The metadata directory keeps only a pointer to the tables ([[StorePointer]]), by which the
 * query path finds them. The tables' files are under the database's location, in
 * `<name>__skipstone/`, which [[drop]] deletes with the tables.
 */
final class CatalogTableStore(session: SparkSession, val table: CatalogTableRef, val datasetRoot: String,
                              metadataDir: Path) extends MetadataStore {
  import CatalogTableStore._

  private def catalog = session.sessionState.catalog
  private def external = session.sharedState.externalCatalog
  private def conf = session.sessionState.newHadoopConf()
  // versions are immutable: one catalog call per version this store object is asked about
  private val tables = new ConcurrentHashMap[Long, CatalogTable]()

  override def location: String = table.choice

  // one catalog call: a query's planning revalidating the dataset asks this
  override def versions(): Seq[Long] = {
    val VersionName = (java.util.regex.Pattern.quote(table.name) + """__v(\d+)""").r
    try external.listTables(table.database, table.listingPattern).collect { case VersionName(n) => n.toLong }.sorted
    catch { case _: NoSuchNamespaceException | _: NoSuchDatabaseException => Nil } // the database was dropped
  }

  private def versionTable(version: Long): CatalogTable = tables.computeIfAbsent(version, { v =>
    val found = external.getTable(table.database, table.versionName(v))
    val holds = found.properties.get(DatasetProperty)
    if (!holds.contains(datasetRoot)) throw new IllegalStateException(s"the catalog table ${found.identifier.unquotedString} " +
      s"is not the Skipstone metadata of $datasetRoot (${holds.fold("it holds no Skipstone metadata")(r => s"it is that of $r")})")
    found
  })

  override def definitionJson(version: Long): String = {
    val properties = versionTable(version).properties
    val parts = properties.get(DefinitionParts).map(_.toInt).getOrElse(throw new IllegalStateException(
      s"the catalog table ${table.database}.${table.versionName(version)} has no Skipstone definition"))
    (0 until parts).map(i => properties(s"$DefinitionPart$i")).mkString
  }

  override def tableDir(version: Long): Path = new Path(versionTable(version).location)

  /** Where the version tables' files live: under the database's location, a directory per dataset. */
  private def storageDir: Path =
    new Path(new Path(external.getDatabase(table.database).locationUri), s"${table.name}__skipstone")

  override def stage(): Staged = {
    if (!external.databaseExists(table.database)) throw new IllegalArgumentException(
      s"the metadata of $datasetRoot goes to the catalog table ${table.versionPattern}, but database ${table.database} " +
        s"does not exist: CREATE DATABASE ${table.database} first, or choose another (${StoreChoice.Forms})")
    // the staged directory becomes the version's location: no rename, the catalog entry publishes it
    Staged(new Path(storageDir, s"build-${UUID.randomUUID()}"))
  }

  override def publish(staged: Staged, definitionJson: String): Long = {
    val latest = latestVersion()
    // a name chosen for one dataset is not taken over by another (its tables would be dropped with it)
    latest.foreach(v => Try(versionTable(v)).failed.toOption.collect { case e: IllegalStateException => e }.foreach(throw _))
    // the table's schema for users' queries; an empty one (a footer this session cannot read) makes Spark infer it
    val schema = Try(MetadataReader.footprint(session, staged.tableDir)).toOption.flatten.map(_.schema).getOrElse(new StructType())
    val published = createFreeVersion(staged, schema, definitionJson, latest.getOrElse(0L) + 1, triesLeft = 10)
    if (!StorePointer.read(conf, metadataDir).contains(table)) StorePointer.write(conf, metadataDir, table)
    pruneSuperseded(published)
    published
  }

  /**
   * Creates the first version table from `version` on that no other publisher took. The in-memory
   * catalog says "exists" with its own exception; the Hive metastore's answer comes wrapped in
   * another, and the table then exists: either way, the number was taken.
   */
  private def createFreeVersion(staged: Staged, schema: StructType, definitionJson: String, version: Long,
                                triesLeft: Int): Long = {
    val parts = definitionJson.grouped(PartChars).toSeq
    val definition = CatalogTable(
      identifier = TableIdentifier(table.versionName(version), Some(table.database)),
      tableType = CatalogTableType.EXTERNAL,
      storage = CatalogStorageFormat.empty.copy(locationUri = Some(staged.tableDir.toUri)),
      schema = schema,
      provider = Some("parquet"),
      properties = Map(DatasetProperty -> datasetRoot, VersionProperty -> version.toString,
        DefinitionParts -> parts.size.toString) ++ parts.zipWithIndex.map { case (p, i) => s"$DefinitionPart$i" -> p })
    try { catalog.createTable(definition, ignoreIfExists = false, validateLocation = false); version }
    catch {
      case NonFatal(e) if triesLeft > 0 && Try(external.tableExists(table.database, table.versionName(version))).getOrElse(false) =>
        createFreeVersion(staged, schema, definitionJson, version + 1, triesLeft - 1)
    }
  }

  override def abandon(staged: Staged): Unit = {
    val fs = staged.dir.getFileSystem(conf)
    if (fs.exists(staged.dir)) fs.delete(staged.dir, true)
  }

  override def drop(): Boolean = {
    val all = versions()
    all.foreach(dropVersion)
    val fs = metadataDir.getFileSystem(conf)
    if (external.databaseExists(table.database)) Try(fs.delete(storageDir, true))
    StorePointer.remove(conf, metadataDir)
    all.nonEmpty
  }

  private def dropVersion(version: Long): Unit = {
    val location = Try(tableDir(version)).toOption
    catalog.dropTable(TableIdentifier(table.versionName(version), Some(table.database)), ignoreIfNotExists = true,
      purge = false)
    // the table is external: its files are ours to delete (the build directory that holds them)
    location.foreach(dir => Try(dir.getFileSystem(conf).delete(dir.getParent, true)))
  }

  /**
   * As the file store does: drops the version tables older than the last two whose successor
   * was created more than [[ParquetFileStore.SupersededGraceMillis]] ago, so that a reader that
   * picked a version just before the next publish can still load it.
   */
  private def pruneSuperseded(published: Long): Unit = {
    val now = System.currentTimeMillis()
    val all = versions()
    all.zip(all.drop(1)).foreach { case (old, successor) =>
      val supersededAt = Try(external.getTable(table.database, table.versionName(successor)).createTime).toOption
      if (old <= published - ParquetFileStore.VersionsRetained &&
        supersededAt.exists(now - _ > ParquetFileStore.SupersededGraceMillis)) Try(dropVersion(old))
    }
  }
}

object CatalogTableStore {
  val DatasetProperty = "skipstone.dataset"
  val VersionProperty = "skipstone.version"
  /**
   * The definition in parts, as Spark keeps a table's schema in its properties: the Hive
   * metastore's property values are 4000 characters at most in some of its databases.
   */
  val DefinitionParts = "skipstone.definition.numParts"
  val DefinitionPart = "skipstone.definition.part."
  private val PartChars = 4000
}
