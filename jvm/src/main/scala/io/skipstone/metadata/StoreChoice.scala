package io.skipstone.metadata

import org.apache.spark.sql.SparkSession

/**
 * Which store a dataset's metadata goes to, as users write it: `files` (Parquet files beside
 * the data, the default), `catalog` (a table of the session catalog, in the current database,
 * named after the dataset), `catalog:<database>` or `catalog:<database>.<table>`.
 */
sealed trait StoreChoice

object StoreChoice {
  case object Files extends StoreChoice

  final case class Catalog(database: Option[String], name: Option[String]) extends StoreChoice {
    def table(session: SparkSession, datasetRoot: String): CatalogTableRef =
      CatalogTableRef(database.getOrElse(session.catalog.currentDatabase.toLowerCase), name.getOrElse(derivedName(datasetRoot)))
  }

  private val Identifier = "[a-z0-9_]+".r
  val Forms = "files, catalog, catalog:<database> or catalog:<database>.<table>"

  /** `text` as a choice; `where` names the setting or argument it came from, for the error. */
  def parse(text: String, where: String): StoreChoice = {
    def bad(why: String) = new IllegalArgumentException(s"$where: metadata store '$text' $why; one of $Forms")
    def identifier(s: String): String = s.trim.toLowerCase match {
      case name @ Identifier() => name
      case _ => throw bad(s"has '$s', which is not a catalog name (letters, digits and _)")
    }
    text.trim.toLowerCase match {
      case "files" => Files
      case "catalog" => Catalog(None, None)
      case named if named.startsWith("catalog:") => named.stripPrefix("catalog:").split("\\.", -1).toSeq match {
        case Seq(db) => Catalog(Some(identifier(db)), None)
        case Seq(db, table) => Catalog(Some(identifier(db)), Some(identifier(table)))
        case _ => throw bad("names more than a database and a table")
      }
      case _ => throw bad("is not a store")
    }
  }

  /** A table name of the dataset's own: its directory's name, and a hash of its root to keep it unique. */
  def derivedName(datasetRoot: String): String = {
    val last = datasetRoot.stripSuffix("/").split('/').lastOption.getOrElse("")
    val readable = last.toLowerCase.replaceAll("[^a-z0-9]+", "_").stripPrefix("_").stripSuffix("_").take(40)
    s"skipstone_${readable}_${MetadataStore.sha1(datasetRoot).take(12)}".replace("__", "_")
  }
}

/** A dataset's metadata in the catalog: version `N` is the table `<database>.<name>__v<N>`. */
final case class CatalogTableRef(database: String, name: String) {
  def versionName(version: Long): String = s"${name}__v$version"
  /** The catalog's table-name pattern that matches every version's table. */
  def listingPattern: String = s"${name}__v*"
  def versionPattern: String = s"$database.${name}__v<N>"
  /** As users choose it: `catalog:<database>.<name>`. */
  def choice: String = s"catalog:$database.$name"
}
