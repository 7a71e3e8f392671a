package io.skipstone.sql.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import io.skipstone.indexing.{IndexBuild, IndexRequest, IndexScope, SourceRelation}
import io.skipstone.metadata.{AutoRefresh, BuildSource, StoreChoice}
import io.skipstone.sql.{IndexRequests, IndexSpec, ResolvedTarget, SkipstoneSqlException, Target}

/**
 * `CREATE SKIPPING INDEX ON t (MINMAX(c), BLOOMFILTER(d) OPTIONS (fpp 0.01), ...)`, each index
 * optionally `ENCRYPTED WITH KEY 'k'` and the statement `WITH FOOTER KEY 'f'` (docs/encryption.md);
 * a partial index's `WHERE p` and `WITH (auto_refresh = true, ...)` (docs/partial-indexes.md);
 * `STORED IN CATALOG TABLE db.name` (the metadata store, as [[StoreChoice]] reads it; docs/metadata.md).
 * The statement is checked and turned into the index build's requests (see [[IndexRequests]])
 * when parsed and run by the same JVM index build the Python API calls ([[IndexBuild]]).
 */
final case class CreateSkippingIndexCommand(target: Target, indexes: Seq[IndexSpec], footerKey: Option[String] = None,
                                            where: Option[String] = None, options: Seq[(String, String)] = Nil,
                                            store: Option[String] = None)
  extends SkipstoneCommand {
  override def statement: String = CreateSkippingIndexCommand.Statement
  override def schema: StructType = SkippingIndexBuild.Schema

  /** The requests JSON the index build takes: `[{"kind", "columns", "params"}, ...]`. */
  val requestsJson: String = IndexRequests.json(statement, indexes)

  /** The partial index's WHERE and the automatic refresh `WITH (...)` asks for, checked when parsed. */
  val scope: IndexScope = IndexScope(where, AutoRefresh.fromOptions(options,
    why => throw new SkipstoneSqlException(s"$statement ON ${target.sql} WITH (...) $why")))

  override def run(session: SparkSession): Seq[Row] = {
    val resolved = SkippingIndexBuild.dataset(session, statement, target)
    // pinned first (a Delta version, an Iceberg snapshot): the source recorded and the build agree
    val data = IndexBuild.pinned(session,
      resolved.table.fold(session.read.format(resolved.format).load(resolved.root))(session.table))
    val source = SourceRelation.buildSource(session, data, resolved.table)
    val choice = store.map(StoreChoice.parse(_, s"$statement ON ${target.sql} STORED IN"))
    Seq(Row(source.root, IndexBuild.build(session, source, data, IndexRequest.parseAll(requestsJson), footerKey = footerKey,
      scope = scope, store = choice)))
  }
}

object CreateSkippingIndexCommand {
  val Statement = "CREATE SKIPPING INDEX"
}

/** `REFRESH SKIPPING INDEX ON t`: index new and changed files as the last build did. */
final case class RefreshSkippingIndexCommand(target: Target) extends SkipstoneCommand {
  override def statement: String = "REFRESH SKIPPING INDEX"
  override def schema: StructType = SkippingIndexBuild.Schema
  override def run(session: SparkSession): Seq[Row] = {
    val resolved = SkippingIndexBuild.dataset(session, statement, target)
    Seq(Row(resolved.root, IndexBuild.refresh(session, resolved.root)))
  }
}

private object SkippingIndexBuild {
  /** What a build or refresh returns: the dataset and the metadata version it published. */
  val Schema: StructType = new StructType().add("dataset", StringType).add("version", LongType)

  /**
   * The statement's target, which must be a plain dataset: a managed table's indexes cover the
   * files its manifest lists, not its directory, and are kept by the table's own operations.
   */
  def dataset(session: SparkSession, statement: String, target: Target): ResolvedTarget = {
    val resolved = ResolvedTarget(session, target)
    if (resolved.isManagedTable(session)) {
      throw new SkipstoneSqlException(s"$statement ON ${target.sql}: it is a Skipstone managed table, whose indexes " +
        "are built with the table (Skipstone.create(..., indexes=[...])) and kept up to date by its commits")
    }
    resolved
  }
}
