package io.skipstone.table

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.types.StructType

import io.skipstone.indexing.{IndexBuild, IndexRequest}
import io.skipstone.metadata.{BuildSource, FilePaths, MetadataStore, StoreChoice}

/**
 * The skipping metadata a table writer publishes for the files of the version it commits. The
 * newest metadata version is the base: its rows are kept for the files it covers, every other
 * live file is collected. Usually those are the writer's new files alone; a concurrent writer
 * whose metadata version won the race may have left a committed file uncovered, and it is
 * collected again here rather than staying unskippable.
 */
object TableMetadata extends Logging {
  /**
   * The metadata version published for `live` (absolute paths of the new version's files), of
   * which `added` are new; None when the version has no file. `roles` computes the roles of
   * indexes that need Python for the files collected. With `indexes` (a create) a first version
   * is built for them instead.
   */
  def publish(session: SparkSession, root: String, schema: StructType, live: Seq[String], added: Seq[String],
              roles: Option[PythonRoles], indexes: Seq[IndexRequest] = Nil): Option[Long] = Option.when(live.nonEmpty) {
    // the table's schema: no footer is read to infer it
    def read(paths: Seq[String]) = session.read.schema(schema).parquet(paths: _*)
    val data = read(live)
    val source = BuildSource(root, "parquet", Map.empty, None, Some(data.schema))
    // in files, whatever the session's default store: the table's log records the versions it uses,
    // and a new table has no log yet to say it is one
    if (indexes.nonEmpty) IndexBuild.build(session, source, data, indexes, roles.map(_.compute(data)),
      store = Some(StoreChoice.Files))
    else {
      val covered = coveredPaths(session, root)
      val addedSet = added.map(canonical).toSet
      val collected = added ++ live.filter(p => !covered.contains(canonical(p)) && !addedSet.contains(canonical(p)))
      val subset = Option.when(collected.nonEmpty)(read(collected))
      IndexBuild.replaceFiles(session, source, data, subset, for (r <- roles; s <- subset) yield r.compute(s))
    }
  }

  /** The rows of each of `paths` as metadata version `version` records them (the files' own counts). */
  def rowCounts(session: SparkSession, root: String, version: Long, paths: Seq[String]): Map[String, Long] = {
    val wanted = paths.map(canonical).toSet
    session.read.parquet(MetadataStore.of(session, root).tableDir(version).toString).select("path", "num_rows").collect()
      .collect { case r if wanted.contains(r.getString(0)) => r.getString(0) -> r.getLong(1) }.toMap
  }

  /**
   * After a writer published metadata and then failed to commit: the newest metadata version is
   * the writer's, which lacks the files of the version that won. Publishes metadata for the
   * newest version's files, so that they skip again. A failure here only costs skipping: warned.
   */
  def repair(session: SparkSession, root: String, schema: StructType, roles: Option[PythonRoles]): Unit =
    try TableLog.latest(session.sessionState.newHadoopConf(), root).filter(_.files.nonEmpty).foreach { current =>
      publish(session, root, schema, current.files.map(f => s"$root/${f.path}"), Nil, roles)
    } catch {
      case NonFatal(e) => logWarning(s"Skipstone: could not refresh the skipping metadata of $root: ${e.getMessage}")
    }

  def canonical(path: String): String = FilePaths.canonical(new java.net.URI(path))

  private def coveredPaths(session: SparkSession, root: String): Set[String] =
    MetadataStore.current(session, root).fold(Set.empty[String]) { case (_, tableDir, _) =>
      session.read.parquet(tableDir.toString).select("path").collect().map(_.getString(0)).toSet
    }
}
