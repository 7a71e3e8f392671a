package io.skipstone

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.execution.datasources.InMemoryFileIndex
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

import io.skipstone.indexing.{FormatSniffer, SourceRelation}
import io.skipstone.metadata.{FilePaths, MetadataCache, MetadataStore}
import io.skipstone.query.{ListingStats, QueryStatsListener, SkippingRule}
import io.skipstone.sources.TableFormats

/**
 * The JVM entry points the Python API (and Scala users) call. Everything on the query path
 * lives in [[io.skipstone.query]]; this object only orchestrates builds and answers questions.
 */
object Skipstone {
  val ExtensionClass = "io.skipstone.SkipstoneExtension"

  /** Raises, in the user's terms, unless `name` is a catalog table backed by files (not a view). */
  def requireFileTable(session: SparkSession, name: String): Unit = io.skipstone.sql.FileTables.require(session, name)

  /** Spark only logs a warning for a wrong `spark.sql.extensions`; we raise instead. */
  def ensureActive(session: SparkSession): Unit = {
    val rules = session.sessionState.optimizer.extendedOperatorOptimizationRules
    if (!rules.exists(_.isInstanceOf[SkippingRule])) {
      val configured = session.conf.getOption("spark.sql.extensions").getOrElse("<unset>")
      throw new IllegalStateException(
        s"Skipstone's extension is not active in this SparkSession (spark.sql.extensions=$configured). " +
          s"Create the session with skipstone.configure(SparkSession.builder) or " +
          s"--conf spark.sql.extensions=$ExtensionClass; it cannot be added to a running session.")
    }
    QueryStatsListener.ensureRegistered(session)
  }

  def qualify(session: SparkSession, path: String): String = MetadataStore.qualify(session, path)

  /** Where the dataset's metadata versions live: a directory, or `catalog:db.name` (see [[MetadataStore.location]]). */
  def metadataDir(session: SparkSession, datasetRoot: String): String =
    MetadataStore.of(session, datasetRoot).location

  /**
   * A staging directory for a new version of the dataset's metadata, in the store it goes to:
   * write its table as Parquet into `<staging>/table`, then [[publish]] it.
   */
  def newStagingDir(session: SparkSession, datasetRoot: String): String =
    MetadataStore.forPublish(session, datasetRoot, None).stage().dir.toString

  def publish(session: SparkSession, datasetRoot: String, staging: String, definitionJson: String): Long = {
    val store = MetadataStore.forPublish(session, datasetRoot, None)
    val version = store.publish(io.skipstone.metadata.Staged(new org.apache.hadoop.fs.Path(staging)), definitionJson)
    MetadataCache.invalidate(session, datasetRoot)
    version
  }

  /** The current version's table directory and definition JSON, or an empty list if none. */
  def currentVersion(session: SparkSession, datasetRoot: String): java.util.List[String] =
    MetadataStore.current(session, datasetRoot).toSeq.flatMap { case (version, tableDir, json) =>
      Seq(version.toString, tableDir.toString, json)
    }.asJava

  /**
   * How many files a metadata version's table describes, from its Parquet footers (no Spark job);
   * null when the table is encrypted and this session does not hold its footer key.
   */
  def filesIndexed(session: SparkSession, tableDir: String): java.lang.Long =
    MetadataStore.filesIndexed(session.sessionState.newHadoopConf(), new org.apache.hadoop.fs.Path(tableDir))
      .map(Long.box).orNull

  /**
   * Forget every cached metadata version and every managed table's cached resolution (its newest
   * version and the other writers' files in its root): benchmarks measure cold starts with it.
   */
  def clearCache(): Unit = {
    MetadataCache.clear()
    io.skipstone.table.ManagedTables.clear()
  }

  def drop(session: SparkSession, datasetRoot: String): Boolean = MetadataCache.drop(session, datasetRoot)

  /**
   * What a DataFrame reads, as JSON: `root` (null when it reads several paths), `format`, `table` (or null), `reader` (the
   * [[io.skipstone.metadata.ReadContext]] metadata built from it is valid for), `options`
   * (every reader option) and `schema` (the relation's), to read new files the same way on refresh.
   */
  def describeSource(df: org.apache.spark.sql.DataFrame): String = {
    val session = df.sparkSession.asInstanceOf[SparkSession]
    val source = SourceRelation.of(session, df)
    JsonMethods.compact(JsonMethods.render(
      ("root" -> source.root.map(FilePaths.requireUnescaped)) ~ ("format" -> source.format(session)) ~
        ("table" -> source.tableName) ~
        ("reader" -> source.context(session).toJson) ~ ("options" -> source.readerOptions) ~
        ("schema" -> JsonMethods.parse(source.relation.schema.json))))
  }

  /**
   * The table format (`delta`, `iceberg`) whose table is under `root` (its `_delta_log`, its
   * Iceberg `metadata/`), which is indexed with that format; null for a plain directory.
   */
  def tableFormatAt(session: SparkSession, root: String): String =
    TableFormats.at(session.sessionState.newHadoopConf(), root).map(_.name).orNull

  /** (format, example file) of the data under `root`, judged from a file's first bytes; empty if none. */
  def sniffFormat(session: SparkSession, root: String): java.util.List[String] =
    FormatSniffer.sniff(root, session.sessionState.newHadoopConf()).toSeq.flatMap { case (f, file) => Seq(f, file) }.asJava

  /** The data files under a directory as Spark lists them (hidden and `_` entries excluded), with identity. */
  def listDataFiles(session: SparkSession, root: String): org.apache.spark.sql.DataFrame = {
    val index = new InMemoryFileIndex(session, Seq(new org.apache.hadoop.fs.Path(root)), Map.empty, None)
    val rows = index.allFiles().map { s =>
      val id = io.skipstone.metadata.FileIdentity.of(s)
      Row(FilePaths.canonical(s.getPath.toUri), id.size, id.modificationTime, id.fingerprint.orNull)
    }
    session.createDataFrame(rows.asJava, SourceRelation.FilesSchema)
  }

  /** JSON of the last successful query's skipping, or "null" if no query ran since enabling. */
  def lastQueryStats(session: SparkSession): String = {
    waitForListeners(session)
    QueryStatsListener.lastStats(session).map { stats =>
      JsonMethods.compact(JsonMethods.render(("per_dataset" -> stats.perDataset.map(toJson))))
    }.getOrElse("null")
  }

  private def toJson(s: ListingStats) =
    ("path" -> s.datasetRoot) ~ ("files_total" -> s.filesTotal) ~ ("files_skipped" -> s.filesSkipped) ~
      ("bytes_total" -> s.bytesTotal) ~ ("bytes_skipped" -> s.bytesSkipped) ~
      ("files_unindexed" -> s.filesUnindexed) ~ ("files_outside_where" -> s.filesOutsideWhere) ~
      ("rows_skipped" -> s.rowsSkipped) ~ ("unanswered" -> s.unanswered.toList) ~
      ("skipped_by_index" -> s.skippedByIndex.map { case (k, v) => ("index" -> k) ~ ("files" -> v) }.toList)

  /**
   * Query listeners run on Spark's listener bus thread after the query returns. The bus is
   * `private[spark]` in Scala but public in bytecode, hence reflection.
   */
  private def waitForListeners(session: SparkSession): Unit = {
    val sc = session.sparkContext
    val bus = sc.getClass.getMethod("listenerBus").invoke(sc)
    bus.getClass.getMethod("waitUntilEmpty").invoke(bus)
  }
}
