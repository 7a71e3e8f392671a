package io.skipstone.sql

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.catalog.{CatalogTable, CatalogTableType}

import io.skipstone.metadata.{FilePaths, MetadataStore}
import io.skipstone.sources.IcebergTables
import io.skipstone.table.{TableLog, Tables}

/** A statement's target as a dataset: its root directory, file format and catalog name if any. */
final case class ResolvedTarget(target: Target, root: String, format: String, table: Option[String]) {
  def isManagedTable(session: SparkSession): Boolean = Tables.isManaged(session, root)

  /** The root, or a clear error when the target is no managed table (the statement needs one). */
  def managedRoot(session: SparkSession, statement: String): String = {
    if (!isManagedTable(session)) {
      throw new SkipstoneSqlException(
        s"$statement: ${target.sql} is not a Skipstone table (no log under ${TableLog.logDir(root)}); " +
          s"create one with CREATE TABLE ${target.sql} USING skipstone AS SELECT ... (docs/sql.md)")
    }
    root
  }
}

object ResolvedTarget {
  def apply(session: SparkSession, target: Target): ResolvedTarget = target match {
    case PathTarget(format, path) => ResolvedTarget(target, MetadataStore.qualify(session, path), format, None)
    case TableName(parts) if !inSessionCatalog(session, parts) => IcebergTables.resolve(session, parts) match {
      case Some((root, name)) => ResolvedTarget(target, FilePaths.requireUnescaped(root), IcebergTables.Format, Some(name))
      case None => throw new SkipstoneSqlException(s"${target.sql} is no Iceberg table (nor a table of the session " +
        "catalog): Skipstone indexes tables of files, Delta Lake tables and Iceberg tables of any catalog")
    }
    case TableName(parts) =>
      val ident = parts match {
        case Seq(t) => TableIdentifier(t)
        case Seq(db, t) => TableIdentifier(t, Some(db))
        case Seq(catalog, db, t) => TableIdentifier(t, Some(db), Some(catalog))
        case _ => throw new SkipstoneSqlException(s"${target.sql}: a table name has at most three parts (catalog.db.table)")
      }
      val meta = FileTables.of(session, parts, ident)
      ResolvedTarget(target, FilePaths.requireUnescaped(FilePaths.root(meta.location)), meta.provider.getOrElse("hive"), Some(ident.unquotedString))
  }

  /**
   * Whether `parts` names a table (or view) of Spark's session catalog: a name qualified by it
   * (three parts or more name the catalog first), or a shorter one while it is the current
   * catalog. Tables of other catalogs (Iceberg's
   * catalogs) are resolved through the catalog that owns them.
   */
  private def inSessionCatalog(session: SparkSession, parts: Seq[String]): Boolean = parts match {
    case Seq(catalog, _, _, _*) => catalog.equalsIgnoreCase(SessionCatalogName)
    case _ => session.catalog.currentCatalog().equalsIgnoreCase(SessionCatalogName) ||
      session.sessionState.catalog.isTempView(parts)
  }

  /** Spark's name for its session catalog (`CatalogManager.SESSION_CATALOG_NAME`). */
  private val SessionCatalogName = "spark_catalog"
}

/**
 * The catalog entry of a table whose rows live in files under one location, or an error in the
 * user's terms. A view is refused rather than followed: its rows are a query's (a WHERE, a join),
 * not its files', and metadata is kept per file of the dataset.
 */
object FileTables {
  def require(session: SparkSession, name: String): Unit =
    ResolvedTarget(session, TableName(session.sessionState.sqlParser.parseMultipartIdentifier(name)))

  def of(session: SparkSession, parts: Seq[String], ident: TableIdentifier): CatalogTable = {
    val catalog = session.sessionState.catalog
    val shown = parts.mkString(".")
    if (catalog.isTempView(parts)) throw notFiles(s"$shown is a temporary view")
    val meta = catalog.getTableMetadata(ident)
    if (meta.tableType == CatalogTableType.VIEW) throw notFiles(s"$shown is a view")
    if (meta.storage.locationUri.isEmpty) throw new SkipstoneSqlException(
      s"$shown is a table without a file location (provider ${meta.provider.getOrElse("unknown")}); " +
        "Skipstone indexes file-based tables and directories (Parquet, ORC, CSV, JSON, ...)")
    meta
  }

  private def notFiles(what: String): SkipstoneSqlException = new SkipstoneSqlException(
    s"$what; Skipstone indexes file-based tables and directories: index the table or path the view reads")
}

/** A Skipstone SQL statement that is wrong or cannot run; the message names the statement and what is at fault. */
class SkipstoneSqlException(message: String) extends IllegalArgumentException(message)
