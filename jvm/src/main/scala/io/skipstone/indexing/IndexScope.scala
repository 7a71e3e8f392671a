package io.skipstone.indexing

import org.apache.spark.sql.{DataFrame, SparkSession}

import io.skipstone.metadata.{AutoRefresh, BuildSource, DatasetIndex}

/**
 * Which files a dataset's index covers and how it keeps up (docs/partial-indexes.md): a partial
 * index's WHERE, and whether queries index new files themselves. Stored with the definition, so
 * that every refresh keeps both.
 */
case class IndexScope(where: Option[String], autoRefresh: Option[AutoRefresh]) {
  /** Raises an [[IndexBuildError]] naming what cannot be built: a bad WHERE, an automatic refresh that cannot run. */
  def check(session: SparkSession, source: BuildSource, data: DataFrame, indexes: Seq[PreparedIndex]): Unit = {
    where.foreach(PartialIndex.check(session, data, _, source.name))
    if (autoRefresh.isDefined) {
      if (source.isTableFormat) throw new IndexBuildError(s"the automatic refresh of ${source.name}: a ${source.format} " +
        "table's index follows the table's snapshots, which queries may travel between; refresh it with " +
        "REFRESH SKIPPING INDEX (or refresh()) after the table changes")
      indexes.find(_.roles.exists(_._2.isInstanceOf[PythonRole])).foreach { ix =>
        throw new IndexBuildError(s"the automatic refresh of ${source.name}: ${ix.description} computes metadata with a " +
          "Python function, which a query's refresh in the JVM cannot call; refresh() it from Python instead")
      }
    }
  }
}

object IndexScope {
  /** Every file, refreshed on demand only. */
  val Whole: IndexScope = IndexScope(None, None)

  def of(definition: DatasetIndex): IndexScope = IndexScope(definition.where, definition.autoRefresh)
}
