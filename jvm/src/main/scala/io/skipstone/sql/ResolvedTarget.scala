package io.skipstone.sql

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier

import io.skipstone.metadata.{FilePaths, MetadataStore}
import io.skipstone.table.{TableLog, Tables}

/** A statement's target as a dataset: its root directory, file format and catalog name if any. */
final case class ResolvedTarget(target: Target, root: String, format: String, table: Option[String]) {
  def isManagedTable(session: SparkSession): Boolean = Tables.isManaged(session, root)

  /** The root, or a clear error when the target is no managed table (the statement needs one). */
  def managedRoot(session: SparkSession, statement: String): String = {
    if (!isManagedTable(session)) {
      throw new SkipstoneSqlException(
        s"$statement: ${target.sql} is not a Skipstone table (no log under ${TableLog.logDir(root)}); " +
          "create one with Python's Skipstone.create(...) (docs/tables.md)")
    }
    root
  }
}

object ResolvedTarget {
  def apply(session: SparkSession, target: Target): ResolvedTarget = target match {
    case PathTarget(format, path) => ResolvedTarget(target, MetadataStore.qualify(session, path), format, None)
    case TableName(parts) =>
      val ident = parts match {
        case Seq(t) => TableIdentifier(t)
        case Seq(db, t) => TableIdentifier(t, Some(db))
        case Seq(catalog, db, t) => TableIdentifier(t, Some(db), Some(catalog))
        case _ => throw new SkipstoneSqlException(s"${target.sql}: a table name has at most three parts (catalog.db.table)")
      }
      val meta = session.sessionState.catalog.getTableMetadata(ident)
      ResolvedTarget(target, FilePaths.requireUnescaped(FilePaths.root(meta.location)), meta.provider.getOrElse("hive"), Some(ident.unquotedString))
  }
}

/** A Skipstone SQL statement that is wrong or cannot run; the message names the statement and what is at fault. */
class SkipstoneSqlException(message: String) extends IllegalArgumentException(message)
