package io.skipstone.indexing

import scala.collection.immutable.ListMap
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.json4s.{JArray, JObject, JString}
import org.json4s.jackson.JsonMethods

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.col

import org.apache.spark.internal.Logging

import io.skipstone.clauses.rules.{FunctionIdentity, StoredRule}
import io.skipstone.encryption.EncryptionConf
import io.skipstone.metadata.{AutoRefresh, BuildSource, DatasetIndex, IndexSpec, KeyAccess, MetadataCache, MetadataEncryption, MetadataStore, ReadContext, StoreChoice}
import io.skipstone.sources.{DeltaTables, IcebergFiles, IcebergTables}

/**
 * The one way indexes are built: from index requests (as index.json stores them) to a new,
 * published metadata version. SQL commands, Scala and the Python API all call these; Python
 * only adds the roles that need a Python function, as a DataFrame of per-file values.
 *
 * {{{
 *   val data = spark.read.parquet("/data/weather")
 *   IndexBuild.build(spark, SourceRelation.buildSource(spark, data), data,
 *     IndexRequest.parseAll("""[{"kind": "minmax", "columns": ["temp"]}]"""))
 *   IndexBuild.refresh(spark, "file:/data/weather")
 * }}}
 *
 * A Delta Lake table (`spark.read.format("delta")`, or a catalog table Delta owns) is indexed
 * over its snapshot's live files, at one version that the metadata records (docs/delta-sources.md);
 * an Iceberg table likewise, at one snapshot (docs/iceberg-sources.md).
 */
object IndexBuild extends Logging {
  /**
   * Index every file `data` reads for `requests` (one Spark job, or Parquet footers alone for
   * MinMax when `useFooters`) and publish a new version, replacing earlier indexes.
   *
   * @param extraRoles `path` and the metadata columns of roles computed by Python functions
   * @param scope a partial index's WHERE and the automatic refresh (docs/partial-indexes.md)
   * @param store where the metadata goes (None: where the dataset's is, else the session's default)
   * @return the version published
   */
  def build(session: SparkSession, source: BuildSource, data: DataFrame, requests: Seq[IndexRequest],
            extraRoles: Option[DataFrame] = None, useFooters: Boolean = true, footerKey: Option[String] = None,
            scope: IndexScope = IndexScope.Whole, store: Option[StoreChoice] = None): Long = {
    if (requests.isEmpty) throw new IndexBuildError(
      s"building indexes of ${source.name} needs at least one index, e.g. MinMax(col)")
    val read = pinned(session, data)
    val relation = SourceRelation.of(read)
    val encryption = DataEncryption.of(session, read)
    val indexes = prepare(session, source, read, requests, encryption)
    scope.check(session, source, read, indexes)
    val footer = metadataFooterKey(source, footerKey, indexes, encryption)
    publish(session, source, read, indexes, MetadataCollector.collect(session, source, relation.rowsToIndex(session, read),
      relation.files(session), indexes, extraRoles, useFooters, scope.where), footer, scope, store)
  }

  /**
   * `data` as a build reads it: a Delta table at one version (the one its index resolved, see
   * [[DeltaTables.pinned]]), an Iceberg table at one snapshot as its data files' full contents
   * (see [[IcebergTables.pinned]]), so that its files, its rows and the version recorded agree;
   * any other relation as it is. Python pins first, to compute its roles over the same files.
   */
  def pinned(session: SparkSession, data: DataFrame): DataFrame = IcebergTables.pinned(session, data).getOrElse {
    val relation = SourceRelation.of(data)
    relation.root.filter(_ => relation.tableFormat.contains(DeltaTables))
      .fold(data)(root => DeltaTables.pinned(session, data, relation.relation, root))
  }

  /** The rows a build summarizes per file of `data`, for Python's roles (see [[SourceRelation.rowsToIndex]]). */
  def rowsToIndex(session: SparkSession, data: DataFrame): DataFrame = SourceRelation.of(data).rowsToIndex(session, data)

  /** Every row of `files` (canonical paths) of the Delta or Iceberg table `data` reads (pinned), for a refresh. */
  def tableFileRows(session: SparkSession, data: DataFrame, files: java.util.List[String]): DataFrame =
    SourceRelation.of(data).tableFileRows(session, data, files.asScala.toSeq)

  /**
   * [[build]] with strings only, for Python: `optionsJson` a JSON object, `table`, `extraRoles`
   * and `footerKey` may be null.
   */
  def build(session: SparkSession, data: DataFrame, root: String, format: String, optionsJson: String, table: String,
            requestsJson: String, extraRoles: DataFrame, useFooters: Boolean, footerKey: String): Long =
    build(session, data, root, format, optionsJson, table, requestsJson, extraRoles, useFooters, footerKey, null, null, null)

  /**
   * [[build]] for Python with a partial index's WHERE (null: every file), the automatic
   * refresh's settings as a JSON object of `CREATE SKIPPING INDEX ... WITH (...)`'s options
   * (null: none) and the metadata store as users write it (see [[StoreChoice]]; null: where the
   * dataset's is, else the session's default).
   */
  def build(session: SparkSession, data: DataFrame, root: String, format: String, optionsJson: String, table: String,
            requestsJson: String, extraRoles: DataFrame, useFooters: Boolean, footerKey: String, where: String,
            autoRefreshJson: String, store: String): Long = {
    val source = BuildSource(root, format, stringMap(optionsJson), Option(table), Some(data.schema))
    val refresh = AutoRefresh.fromOptions(stringMap(autoRefreshJson).toSeq,
      why => throw new IndexBuildError(s"the automatic refresh of ${source.name} $why"))
    build(session, source, data, IndexRequest.parseAll(requestsJson), Option(extraRoles), useFooters,
      Option(footerKey).map(_.trim).filter(_.nonEmpty), IndexScope(Option(where), refresh),
      Option(store).map(StoreChoice.parse(_, s"the metadata store of $root")))
  }

  /**
   * Index new and changed files, forget deleted ones; unchanged files are not read. Files are
   * read as the build read them (format, options, schema, table), from any session.
   */
  def refresh(session: SparkSession, datasetRoot: String): Long = {
    val root = MetadataStore.qualify(session, datasetRoot)
    val (_, definition) = current(session, root)
    val source = definition.read.getOrElse(BuildSource(root, definition.format, Map.empty, None, None))
    val data = pinned(session, source.read(session))
    val stale = staleFiles(session, root, data)
    val subset = Option.when(stale.nonEmpty) {
      if (source.isTableFormat) SourceRelation.of(data).tableFileRows(session, data, stale) else source.read(session, Some(stale))
    }
    refresh(session, source, data, subset, None)
  }

  /**
   * The refresh of [[refresh(session, datasetRoot)]] with the reads done by the caller:
   * `data` is the whole dataset now, `subset` the files of [[staleFiles]] read the same way
   * (None if there are none), `extraRoles` the Python-computed roles of those files.
   */
  def refresh(session: SparkSession, source: BuildSource, data: DataFrame, subset: Option[DataFrame],
              extraRoles: Option[DataFrame]): Long = {
    val (tableDir, definition) = current(session, source.root)
    val old = session.read.parquet(tableDir.toString)
    val relation = SourceRelation.of(data)
    val listed = relation.files(session)
    val byLog = relation.tableFormat.isDefined
    val kept = if (readsAsBuilt(session, definition, data)) old.join(listed, unchanged(old, listed, byLog), "left_semi")
      else old.limit(0)
    update(session, source, data, definition, kept, subset, extraRoles)
  }

  /** [[refresh]] with strings for Python; `subset` and `extraRoles` may be null. */
  def refresh(session: SparkSession, data: DataFrame, root: String, format: String, optionsJson: String, table: String,
              subset: DataFrame, extraRoles: DataFrame): Long =
    refresh(session, BuildSource(root, format, stringMap(optionsJson), Option(table), Some(data.schema)), data,
      Option(subset), Option(extraRoles))

  /**
   * Files `data` lists now that the current metadata has no row for, or an outdated one; every
   * file when `data` reads them differently from the build (see [[readsAsBuilt]]).
   */
  def staleFiles(session: SparkSession, datasetRoot: String, data: DataFrame): Seq[String] = {
    val (tableDir, definition) = current(session, datasetRoot)
    val old = session.read.parquet(tableDir.toString)
    val relation = SourceRelation.of(data)
    val listed = relation.files(session)
    val byLog = relation.tableFormat.isDefined
    val stale = if (readsAsBuilt(session, definition, data)) listed.join(old, unchanged(old, listed, byLog), "left_anti")
      else listed
    stale.select(col("path")).collect().map(_.getString(0)).toSeq
  }

  def staleFileList(session: SparkSession, datasetRoot: String, data: DataFrame): java.util.List[String] =
    staleFiles(session, datasetRoot, data).asJava

  /**
   * A query's automatic refresh (docs/partial-indexes.md): `files` (canonical paths a query
   * listed and the current version has no fresh row for) are read as the build read the others
   * and indexed; every other row of the current version is kept. Nothing else is listed or read.
   * None, and nothing published, when the current version asks for no automatic refresh, is of a
   * Delta or Iceberg table, or is read differently by this session (a refresh() is then due).
   */
  def indexListed(session: SparkSession, datasetRoot: String, files: Seq[String]): Option[Long] = {
    val (tableDir, definition) = current(session, datasetRoot)
    definition.read.filter(source => definition.autoRefresh.isDefined && files.nonEmpty && !source.isTableFormat)
      .map(source => (source, source.read(session)))
      .filter { case (_, data) => readsAsBuilt(session, definition, data) }
      .map { case (source, data) =>
        val subset = source.read(session, Some(files))
        val kept = session.read.parquet(tableDir.toString)
          .join(SourceRelation.of(subset).files(session).select("path"), Seq("path"), "left_anti")
        update(session, source, data, definition, kept, Some(subset), None)
      }
  }

  /**
   * Metadata for a set of files some of which are new (a managed table's commit): `subset`
   * reads the new files, whose metadata is collected; the current rows of the other files of
   * `data` are kept. Nothing compares the metadata with a listing.
   */
  def replaceFiles(session: SparkSession, source: BuildSource, data: DataFrame, subset: Option[DataFrame],
                   extraRoles: Option[DataFrame]): Long = {
    val (tableDir, definition) = current(session, source.root)
    if (!readsAsBuilt(session, definition, data)) return update(session, source, data, definition,
      session.read.parquet(tableDir.toString).limit(0), Some(data), extraRoles)
    val old = session.read.parquet(tableDir.toString)
    val live = SourceRelation.of(data).files(session).select("path")
    val kept = old.join(live, Seq("path"), "left_semi")
    // A file both kept and collected would be listed twice: the collected row wins.
    val keptOnly = subset.fold(kept)(s => kept.join(SourceRelation.of(s).files(session).select("path"), Seq("path"), "left_anti"))
    update(session, source, data, definition, keptOnly, subset, extraRoles)
  }

  def replaceFiles(session: SparkSession, data: DataFrame, root: String, format: String, optionsJson: String,
                   table: String, subset: DataFrame, extraRoles: DataFrame): Long =
    replaceFiles(session, BuildSource(root, format, stringMap(optionsJson), Option(table), Some(data.schema)), data,
      Option(subset), Option(extraRoles))

  /**
   * The requests as a build would store them, checked against `data` (columns resolved, types,
   * settings and rules checked, missing settings filled in), as JSON: per index its `kind`,
   * `name`, `columns`, `columnPaths`, `params`, `metadataColumns` (role to column) and
   * `pythonRoles` (the roles a Python function must compute). Raises what the build would raise.
   */
  def plan(session: SparkSession, data: DataFrame, root: String, table: String, requestsJson: String): String = {
    val source = BuildSource(root, "", Map.empty, Option(table), None)
    val indexes = prepare(session, source, data, IndexRequest.parseAll(requestsJson),
      DataEncryption.of(session, data))
    JsonMethods.compact(JsonMethods.render(JArray(indexes.zipWithIndex.map { case (ix, position) =>
      JObject(
        "kind" -> JString(ix.request.kind), "name" -> JString(ix.description),
        "columns" -> JArray(ix.request.columns.map(JString(_)).toList),
        "columnPaths" -> JArray(ix.columns.map(c => JArray(c.path.parts.map(JString(_)).toList)).toList),
        "params" -> JObject(ix.request.params.toList.map { case (k, v) => k -> JString(v) }),
        "metadataColumns" -> JObject(ix.roles.toList.map { case (role, _) => role -> JString(ix.metadataColumn(position, role)) }),
        "pythonRoles" -> JArray(ix.roles.collect { case (role, PythonRole(_)) => JString(role) }.toList))
    }.toList)))
  }

  // -- internals --------------------------------------------------------------------------

  private def update(session: SparkSession, source: BuildSource, data: DataFrame, definition: DatasetIndex,
                     kept: DataFrame, subset: Option[DataFrame], extraRoles: Option[DataFrame]): Long = {
    val requests = definition.indexes.map(ix => IndexRequest(ix.kind, ix.columns, ix.params, Some(ix.describe), ix.key))
    val encryption = DataEncryption.of(session, data)
    val indexes = prepare(session, source, data, requests, encryption)
    val scope = IndexScope.of(definition)
    scope.where.foreach(PartialIndex.check(session, data, _, source.name))
    // A function registered again with another body: the kept rows hold the old body's values.
    val digests = (ixs: Seq[Map[String, String]]) => ixs.map(FunctionIdentity.recorded)
    val sameFunctions = digests(indexes.map(_.request.params)) == digests(definition.indexes.map(_.params))
    if (!sameFunctions) logWarning(
      s"Skipstone: a function indexed in ${definition.datasetRoot} was registered again; every file is indexed again")
    val relation = SourceRelation.of(data)
    val metadata = (if (sameFunctions) subset else Some(relation.rowsToIndex(session, data))).map { s =>
      // A table format's files are identified as its metadata lists them, whatever reads their rows.
      val files = if (relation.tableFormat.isEmpty) SourceRelation.of(s).files(session)
        else relation.files(session).join(SourceRelation.of(s).files(session).select("path"), Seq("path"), "left_semi")
      val fresh = MetadataCollector.collect(session, source, s, files, indexes, extraRoles, useFooters = true, scope.where)
      (if (sameFunctions) kept else kept.limit(0)).unionByName(fresh.select(kept.columns.toSeq.map(col): _*))
    }.getOrElse(kept)
    publish(session, source, data, indexes, metadata, metadataFooterKey(source, definition.footerKey, indexes, encryption),
      scope)
  }

  /**
   * Whether `data` reads the files as the current version's build did, so that its rows can be
   * kept beside rows collected now: one version records one read context, and every row must
   * hold under it. Otherwise a refresh collects every file again, under the new context.
   */
  private def readsAsBuilt(session: SparkSession, definition: DatasetIndex, data: DataFrame): Boolean = {
    val now = SourceRelation.of(data).context(session)
    val same = definition.context.exists { built =>
      val rules = definition.indexes.exists(StoredRule.isRuleBased)
      val differences = built.differences(now)
      differences.readsAlike && built.dataSchema == now.dataSchema && built.partitionColumns == now.partitionColumns &&
        (!rules || (differences.isEmpty && ReadContext.sameZone(built.timeZone, now.timeZone)))
    }
    if (!same) logWarning(s"Skipstone: ${definition.datasetRoot} is read differently from how its index was built " +
      "(reader options, columns, session settings or time zone); every file is indexed again")
    same
  }

  /**
   * Same path, size, modification time and fingerprint: the metadata row still describes the
   * file. A Delta or Iceberg table's files are immutable and never named twice: path and size suffice.
   */
  private def unchanged(old: DataFrame, listed: DataFrame, byPathAndSize: Boolean) =
    if (!old.columns.contains("fingerprint")) org.apache.spark.sql.functions.lit(false)
    else if (byPathAndSize) old("path") === listed("path") && old("size") === listed("size")
    else old("path") === listed("path") && old("size") === listed("size") && old("mtime") === listed("mtime") &&
      old("fingerprint").eqNullSafe(listed("fingerprint"))

  /**
   * The current version's table and definition, for a change that reads its rows: the session
   * must hold every key the table is encrypted with.
   */
  private def current(session: SparkSession, datasetRoot: String): (Path, DatasetIndex) = {
    val store = MetadataStore.of(session, datasetRoot)
    val version = store.latestVersion().getOrElse(throw new IndexBuildError(
      s"dataset $datasetRoot has no Skipstone index to refresh; build one first"))
    val (tableDir, definition) = (store.tableDir(version), store.readDefinition(version))
    if (definition.isEncrypted) {
      val access = KeyAccess.probe(session.sessionState.newHadoopConf(), tableDir, definition)
      access.footerDenied.map(why => s"the footer key '${definition.footerKey.get}' ($why)")
        .orElse(access.deniedKeys.headOption.map { case (key, why) => s"key '$key' ($why)" })
        .foreach(missing => throw new IndexBuildError(s"updating the index of $datasetRoot reads all of its metadata, " +
          s"which needs every key it is encrypted with (${definition.keyIds.mkString(", ")}); this session cannot use $missing"))
    }
    (tableDir, definition)
  }

  /**
   * The current version again under other keys, as a new version: `keys` maps indexes (by the
   * name `describe` shows) to their new key id, or to None for the footer key alone; `footerKey`,
   * if given, replaces the footer key. Rows are copied, not collected again: no data file is
   * read. The session needs every current key (to read) and every new one (to write).
   *
   * An index over a column the data encrypts keeps the column's key (see [[DataEncryption]]).
   */
  def rotateKeys(session: SparkSession, datasetRoot: String, keys: Map[String, Option[String]],
                 footerKey: Option[String]): Long = {
    val root = MetadataStore.qualify(session, datasetRoot)
    val (tableDir, definition) = current(session, root)
    val names = definition.indexes.map(_.describe)
    keys.keys.filterNot(names.contains).foreach { unknown =>
      throw new IndexBuildError(s"$root has no index $unknown (its indexes: ${names.mkString(", ")})")
    }
    (keys.values.flatten ++ footerKey).flatMap(EncryptionConf.keyIdProblem).foreach(p =>
      throw new IndexBuildError(s"a new key of $root: $p"))
    val source = definition.read.getOrElse(BuildSource(root, definition.format, Map.empty, None, None))
    val encryption = DataEncryption.of(session, source.read(session))
    val indexes = definition.indexes.map { ix =>
      val asked = IndexRequest(ix.kind, ix.columns, ix.params, Some(ix.describe), keys.getOrElse(ix.describe, ix.key))
      val columns = ix.columns.zip(ix.paths).zip(ix.columnTypes).map { case ((name, path), t) => ResolvedColumn(name, path, t) }
      ix.copy(key = DataEncryption.settle(asked, columns, encryption, root).key)
    }
    val footer = footerKey.orElse(definition.footerKey)
    if (footer.isEmpty && indexes.exists(_.key.isDefined)) throw new IndexBuildError(
      s"$root has encrypted indexes, so its metadata needs a footer key: pass one")
    publishTable(session, definition.copy(indexes = indexes, footerKey = footer), session.read.parquet(tableDir.toString))
  }

  /** [[rotateKeys]] for Python: `keysJson` a JSON object of index name to key id (or null), `footerKey` may be null. */
  def rotateKeys(session: SparkSession, datasetRoot: String, keysJson: String, footerKey: String): Long = {
    val keys = JsonMethods.parse(keysJson) match {
      case JObject(fields) => fields.map {
        case (name, JString(key)) => name -> Some(key.trim).filter(_.nonEmpty)
        case (name, _) => name -> None
      }.toMap
      case other => throw new IndexBuildError(s"keys must be a JSON object of index name to key id, got ${JsonMethods.compact(other)}")
    }
    rotateKeys(session, datasetRoot, keys, Option(footerKey).map(_.trim).filter(_.nonEmpty))
  }

  /** Requests checked against `data`'s schema: columns resolved, types and settings checked. */
  private def prepare(session: SparkSession, source: BuildSource, data: DataFrame,
                      requests: Seq[IndexRequest], encryption: DataEncryption.Data): Seq[PreparedIndex] = {
    val schema = data.schema
    if (schema.fieldNames.contains("_metadata")) throw new IndexBuildError(
      s"dataset ${source.name} has a column named _metadata, which hides Spark's file metadata Skipstone needs; rename it")
    val caseSensitive = session.sessionState.conf.caseSensitiveAnalysis
    val resolved = requests.map(r => r.columns.map(ColumnResolver.resolve(_, schema, caseSensitive, source.name)))
    checkTableFormat(session, source, data, resolved.flatten)
    val prepared = requests.zip(resolved).map { case (asked, columns) =>
      val kind = IndexKinds.of(asked)
      asked.key.flatMap(EncryptionConf.keyIdProblem).foreach(p => throw new IndexBuildError(
        s"the key of ${asked.name.getOrElse(asked.kind)} on ${source.name}: $p"))
      val request = DataEncryption.settle(asked, columns, encryption, source.name)
      val stored = kind.prepare(session, request, columns, source.name)
      val named = stored.copy(name = Some(IndexKinds.describe(stored)), key = request.key)
      PreparedIndex(named, named.name.get, columns, kind.roles(session, named, columns))
    }
    prepared.groupBy(p => (p.request.kind, p.request.columns, p.request.params.toSet)).values
      .find(_.size > 1).foreach(twice => throw new IndexBuildError(
        s"${twice.head.description} is requested twice for ${source.name}"))
    prepared
  }

  /**
   * What Skipstone cannot index in a Delta or Iceberg table, said before any work. Delta: columns
   * stored under other names (column mapping), and partition columns, whose values live in
   * Delta's log and which Delta prunes itself. Iceberg: columns with an initial default, which
   * Iceberg reads as that default from files written before the column existed.
   */
  private def checkTableFormat(session: SparkSession, source: BuildSource, data: DataFrame,
                               columns: Seq[ResolvedColumn]): Unit = {
    val resolver = session.sessionState.conf.resolver
    val tops = columns.map(_.path.parts.head)
    SourceRelation.find(data).foreach { relation =>
      relation.relation.location match {
        case iceberg: IcebergFiles =>
          tops.find(c => iceberg.snapshot.defaulted.exists(resolver(_, c))).foreach { c =>
            throw new IndexBuildError(s"$c of the Iceberg table ${source.name} has an initial default, which Iceberg " +
              "reads from files written before the column existed; Skipstone indexes columns without one")
          }
        case _ if relation.tableFormat.contains(DeltaTables) =>
          val mapped = DeltaTables.mappedColumns(relation.relation)
          if (mapped.nonEmpty) throw new IndexBuildError(s"the Delta table ${source.name} uses column mapping (columns " +
            s"${mapped.mkString(", ")} are stored under other names in its files); Skipstone indexes Delta tables without column mapping")
          tops.find(c => relation.relation.partitionSchema.fieldNames.exists(resolver(_, c))).foreach { c =>
            throw new IndexBuildError(s"$c is a partition column of the Delta table ${source.name}: Delta prunes partitions " +
              "with its log's values; index data columns")
          }
        case _ =>
      }
    }
  }

  private def publish(session: SparkSession, source: BuildSource, data: DataFrame, indexes: Seq[PreparedIndex],
                      metadata: DataFrame, footerKey: Option[String], scope: IndexScope,
                      store: Option[StoreChoice] = None): Long = {
    val relation = SourceRelation.of(data)
    val context = relation.context(session)
    val definition = DatasetIndex(DatasetIndex.formatVersionFor(scope.where), source.root, context.format,
      indexes.zipWithIndex.map { case (ix, position) =>
        IndexSpec(ix.request.kind, ix.request.columns, ix.columns.map(_.dataType),
          ListMap.from(ix.roles.map { case (role, _) => role -> ix.metadataColumn(position, role) }),
          ix.request.params, Some(ix.description), Some(ix.columns.map(_.path)), ix.request.key)
      }, Some(context), Some(source.copy(schema = Some(data.schema), tableVersion = relation.tableVersion)), footerKey,
      scope.where, scope.autoRefresh)
    publishTable(session, definition, metadata, store)
  }

  /** Writes `metadata` as the table of a new version defined by `definition`, encrypted as it says, and publishes it. */
  private def publishTable(session: SparkSession, definition: DatasetIndex, metadata: DataFrame,
                           store: Option[StoreChoice] = None): Long = {
    val root = definition.datasetRoot
    val target = MetadataStore.forPublish(session, root, store)
    val staged = target.stage()
    try {
      // repartition, not coalesce: coalesce(1) would pull the collection itself into one task
      try metadata.repartition(1).write.options(MetadataEncryption.writerOptions(session, definition, metadata.schema))
        .parquet(staged.tableDir.toString)
      catch {
        case NonFatal(e) if EncryptionConf.keyFailure(e).isDefined => throw new IndexBuildError(
          s"writing the metadata of $root failed for want of a key (the data's, or one of the metadata's: " +
            s"${definition.keyIds.mkString(", ")}): ${EncryptionConf.keyFailure(e).get}")
      }
      val version = target.publish(staged, definition.toJson)
      MetadataCache.invalidate(session, root)
      version
    } catch {
      case NonFatal(e) =>
        scala.util.Try(target.abandon(staged))
        throw e
    }
  }

  /**
   * The key the metadata's footer is encrypted with: the one asked for; else, when an index is
   * encrypted (by request, or because its column is encrypted in the data), the data's own
   * footer key (`parquet.encryption.footer.key` of the reader or the session); else none.
   */
  private def metadataFooterKey(source: BuildSource, asked: Option[String], indexes: Seq[PreparedIndex],
                                encryption: DataEncryption.Data): Option[String] = {
    asked.flatMap(EncryptionConf.keyIdProblem).foreach(p => throw new IndexBuildError(s"the footer key of ${source.name}: $p"))
    val encrypted = indexes.filter(_.request.key.isDefined)
    asked.orElse(Option.when(encrypted.nonEmpty)(encryption.footerKey.getOrElse(throw new IndexBuildError(
      s"${encrypted.head.description} of ${source.name} is encrypted, so its metadata needs a footer key too (the key " +
        "every session that uses the metadata holds): Python build(..., footer_key='<key id>'), SQL " +
        "CREATE SKIPPING INDEX ON ... (...) WITH FOOTER KEY '<key id>'"))))
  }

  private def stringMap(json: String): Map[String, String] = {
    implicit val formats: org.json4s.Formats = org.json4s.DefaultFormats
    Option(json).map(JsonMethods.parse(_).extract[Map[String, String]]).getOrElse(Map.empty)
  }
}
